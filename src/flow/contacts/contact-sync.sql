-- SOURCE OF TRUTH for the database functions behind the ERP sync: the change feed's outbox trigger
-- and the batch upsert. Never edit them in a migration by hand: change this file, then
-- `npm run db:function -- src/flow/contacts/contact-sync.sql <what_changed>` writes a migration
-- with its content, and test/flow/contact-upsert-function.test.ts checks that the deployed
-- functions are this file's. First deployed by migrations/0014_contact_batch_and_change_feed.sql.
-- The design, and why it is correct under concurrency: docs/flow-sync.md.
--
-- A contact as the external API shows it (contact.schemas.ts `toProjection`): never pets, the
-- legacy id or the "edited in flow" marks; times in whole seconds, UTC, with a Z. Every value is a
-- string or null, so `jsonb_object(keys, values)` builds it: the same jsonb as jsonb_build_object,
-- which looks up each of its 22 arguments' types on every call (~2 µs more per change written).
CREATE OR REPLACE FUNCTION vetflow_contact_projection(c contacts) RETURNS jsonb
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT jsonb_object(
    '{id,external_id,document,name,phone,email,address,source,profile_pic_url,created_at,updated_at}'::text[],
    ARRAY[c.id::text, c.external_id, c.document, c.name, c.phone, c.email, c.address, c.source, c.profile_pic_url,
      to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
      to_char(c.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')]) $$;--> statement-breakpoint
-- One row in contact_changes per new version of a contact, in the transaction that writes it, so
-- that no write path (the upsert function, the external DELETE, a CRM user's edit, an operator's
-- UPDATE) can forget it. AFTER INSERT (a skipped `INSERT … ON CONFLICT DO NOTHING` fires no AFTER
-- trigger) and BEFORE UPDATE (to raise the row's change_position with it).
--
-- Position: the writing transaction's id (xid8). A new contact's change_position defaults to it.
-- An update takes the greater of it and the contact's previous position: a transaction that was
-- given its id earlier may write the contact after a later one committed (the row lock orders
-- them), and the feed must still show the older version first. The feed reads only positions
-- below the oldest transaction still running; a position is never below its transaction's own id,
-- so everything it reads has committed and nothing can appear behind it later.
--
-- Source: `erp` unless the transaction said otherwise (`set_config('vetflow.change_source',
-- 'crm_user', true)`, the CRM edit).
--
-- Change: what the version is (`created`, `updated`, `deleted`, `restored`, `erased`). The erasure
-- (erasure.repo.ts) sets erased_at and anonymises the row in one UPDATE: its version is `erased`,
-- with no projection (the row is deleted by then), written even if no API field changed.
CREATE OR REPLACE FUNCTION vetflow_contact_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  fields text[];
  kind text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    kind := 'created';
    fields := array_remove(ARRAY[
      CASE WHEN NEW.external_id IS NOT NULL THEN 'external_id' END,
      CASE WHEN NEW.document IS NOT NULL THEN 'document' END,
      'name', 'phone',
      CASE WHEN NEW.email IS NOT NULL THEN 'email' END,
      CASE WHEN NEW.address IS NOT NULL THEN 'address' END,
      CASE WHEN NEW.source IS NOT NULL THEN 'source' END,
      CASE WHEN NEW.profile_pic_url IS NOT NULL THEN 'profile_pic_url' END], NULL);
  ELSE
    fields := array_remove(ARRAY[
      CASE WHEN NEW.external_id IS DISTINCT FROM OLD.external_id THEN 'external_id' END,
      CASE WHEN NEW.document IS DISTINCT FROM OLD.document THEN 'document' END,
      CASE WHEN NEW.name IS DISTINCT FROM OLD.name THEN 'name' END,
      CASE WHEN NEW.phone IS DISTINCT FROM OLD.phone THEN 'phone' END,
      CASE WHEN NEW.email IS DISTINCT FROM OLD.email THEN 'email' END,
      CASE WHEN NEW.address IS DISTINCT FROM OLD.address THEN 'address' END,
      CASE WHEN NEW.source IS DISTINCT FROM OLD.source THEN 'source' END,
      CASE WHEN NEW.profile_pic_url IS DISTINCT FROM OLD.profile_pic_url THEN 'profile_pic_url' END,
      CASE WHEN (NEW.deleted_at IS NULL) <> (OLD.deleted_at IS NULL) THEN 'deleted' END], NULL);
    kind := CASE WHEN NEW.erased_at IS NOT NULL AND OLD.erased_at IS NULL THEN 'erased'
      WHEN NEW.deleted_at IS NOT NULL AND OLD.deleted_at IS NULL THEN 'deleted'
      WHEN NEW.deleted_at IS NULL AND OLD.deleted_at IS NOT NULL THEN 'restored'
      ELSE 'updated' END;
    -- Only the CRM's own columns changed (edit marks, legacy id): no version the ERP can see.
    IF cardinality(fields) = 0 AND kind <> 'erased' THEN RETURN NEW; END IF;
    NEW.change_position := greatest(pg_current_xact_id()::text::bigint, OLD.change_position);
  END IF;
  INSERT INTO contact_changes (workspace_id, contact_id, position, source, change, changed_fields, deleted, contact)
    VALUES (NEW.workspace_id, NEW.id, NEW.change_position,
      coalesce(nullif(current_setting('vetflow.change_source', true), ''), 'erp'),
      kind, fields, NEW.deleted_at IS NOT NULL,
      CASE WHEN NEW.deleted_at IS NULL THEN vetflow_contact_projection(NEW) END);
  RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE OR REPLACE TRIGGER contacts_change_after_insert AFTER INSERT ON contacts
  FOR EACH ROW EXECUTE FUNCTION vetflow_contact_change();--> statement-breakpoint
CREATE OR REPLACE TRIGGER contacts_change_before_update BEFORE UPDATE ON contacts
  FOR EACH ROW EXECUTE FUNCTION vetflow_contact_change();--> statement-breakpoint
-- The batch upsert (POST /external/workspaces/{id}/contacts/batch): each item is exactly one call
-- of the single upsert, `vetflow_upsert_contact` (upsert-contact.sql), in request order, all in
-- one statement and so one transaction: one round trip and one commit for up to 100 contacts.
-- `p_items` is a JSON array of `{item, sent, external_id, …}` (the single call's arguments; `item`
-- is the request index, `sent` a Postgres text[] literal such as "{external_id,name,phone}",
-- castable without a subquery). Items that identify one contact apply one after the other, each
-- to the version the previous one wrote. A unique violation (a taken phone or external_id, or a
-- create that lost a race: see `p_in_batch` there) aborts the whole call: the service then runs
-- the batch item by item (each its own single upsert), so that only the offending item fails and
-- nothing of it is left.
--
-- Per item the loop costs what the single upsert costs and little more (docs/flow-sync.md#measured):
-- - the items are read by index, not with `FOR entry IN SELECT … jsonb_array_elements(p_items)`:
--   with the items bound as a ~15 kB parameter, that query loop made the backend grow and trim its
--   heap (brk) around every item, ~30 µs per item (perf, 2 cores);
-- - the single upsert is called by assignment, which PL/pgSQL evaluates without starting an
--   executor (a `SELECT … INTO` with an `ARRAY(SELECT …)` argument cost ~20 µs per item);
-- - the audit entries, one per written contact as the single PUT writes them, go in one INSERT
--   after the loop, in item order: they share the transaction's created_at, and their `seq`
--   (identity) is what keeps a contact's create before its update in every listing.
CREATE OR REPLACE FUNCTION vetflow_upsert_contacts(
  p_workspace_id uuid,
  p_items jsonb,
  p_api_key_id uuid,
  p_api_key_prefix text,
  p_request_id text,
  p_ip text
) RETURNS TABLE (item integer, contact contacts, action text, matched_by text, warnings text[], missing_field text)
LANGUAGE plpgsql AS $$
DECLARE
  entry jsonb;
  u record;
  written contact_external_api_audit_logs;
  audits contact_external_api_audit_logs[] := '{}';
BEGIN
  FOR i IN 0..jsonb_array_length(p_items) - 1 LOOP
    entry := p_items -> i;
    u := vetflow_upsert_contact(p_workspace_id, (entry ->> 'sent')::text[],
      entry ->> 'external_id', entry ->> 'document', entry ->> 'name', entry ->> 'phone', entry ->> 'email',
      entry ->> 'address', entry ->> 'source', entry ->> 'profile_pic_url',
      p_api_key_id, p_api_key_prefix, p_request_id, p_ip, p_in_batch => true);
    item := (entry ->> 'item')::integer;
    contact := u.contact;
    action := u.action;
    matched_by := u.matched_by;
    warnings := u.warnings;
    missing_field := u.missing_field;
    IF missing_field IS NULL THEN
      written.contact_id := contact.id;
      written.action := action;
      written.changes := u.audit;
      written.warnings := warnings;
      audits := audits || written;
    END IF;
    RETURN NEXT;
  END LOOP;
  INSERT INTO contact_external_api_audit_logs
    (workspace_id, contact_id, api_key_id, api_key_prefix, action, changes, warnings, request_id, ip)
    SELECT p_workspace_id, a.contact_id, p_api_key_id, p_api_key_prefix, a.action, a.changes, a.warnings, p_request_id, p_ip
    FROM unnest(audits) WITH ORDINALITY a ORDER BY a.ordinality;
END;
$$;