-- SOURCE OF TRUTH for the database functions behind the external contact upsert. Never edit the
-- function in a migration by hand: change it here, then `npm run db:function -- <name>` writes a
-- migration with this file's content (drizzle-kit generate --custom), and
-- test/flow/contact-upsert-function.test.ts checks that the deployed function is this one.
-- First deployed by migrations/0010_contact_upsert_function.sql.
--
-- The external contact upsert (PUT /external/workspaces/{id}/contacts) in one database round trip:
-- match, create / update / restore, sync policy and audit entry, atomically in one statement.
-- Against the two statements it replaces (a prepared match, then one CTE writing the contact and
-- its audit entry, retried in a locked transaction after a lost race), the server spends ~60 µs
-- less per upsert and the whole upsert runs ~10 % more per second on 2 cores (bench/contacts-upsert.ts,
-- docs/flow-contacts.md#benchmark); with the database across a network it is a round trip less.
-- A PL/pgSQL function rather than one big SQL statement, because only the branch taken runs: a
-- single statement with data-modifying CTEs for both writes starts up both on every call.
--
-- Input: the request's fields after validation and normalisation (src/flow/contacts/contact-input.ts).
-- `p_sent` names the fields the request sent (API names): a sent field whose value is NULL clears
-- it, a field not sent is left alone. Identifiers that were not sent are NULL, which `=` never matches.
-- Output: the contact as written, `action` (created / updated / restored), `matched_by`, the
-- warnings; or only `missing_field` when nothing matched and the field needed to create is absent
-- (nothing written). A unique violation (a taken phone or external_id) is raised as SQLSTATE 23505.
--
-- Re-keying: a request whose new external_id matched (by document or phone) a contact that has
-- another external_id takes that contact over, as the contract's matching order says; the answer
-- then warns `external_id_replaced` and the audit entry keeps the old value (`changes.external_id.before`).
-- A workspace whose `external_id_rekeying` is `refuse` has it refused instead: SQLSTATE VF409
-- (nothing written; the service answers 409 EXTERNAL_ID_CONFLICT, and a batch runs its items one by
-- one as after a unique violation).
--
-- `p_in_batch`: the batch (`vetflow_upsert_contacts`, contact-sync.sql) calls this same function
-- once per item with true, and then it differs in two things only, both about cost, not rules:
-- - the audit entry is answered (`audit`, its `changes`) instead of written, and the batch writes
--   every item's entry in one INSERT at the end: the same rows, one per written contact (an
--   INSERT of its own cost an item ~9 µs of ~180 µs of Postgres CPU);
-- - a create does not settle a lost race itself: the INSERT is plain, so the race raises a unique
--   violation as a taken identifier does, and the batch's caller runs the items again one by one,
--   each through the PUT (src/flow/contacts/upsert.service.ts), with the same answers. The
--   speculative insertion of `ON CONFLICT DO NOTHING` cost each created contact ~10 µs.
-- The PUT leaves it false: this function alone, as before (an extra PL/pgSQL call around it
-- would cost every PUT ~12 µs, measured).
--
-- The contact an upsert or a survey trigger is about: the matching order of the contract, written
-- once. A match by external_id beats one by document, which beats one by phone; within a rank an
-- active contact beats a deleted one (deleted ones only with p_include_deleted), then the most
-- recently updated. Identifiers not sent are NULL, which `=` never matches. A single SQL SELECT,
-- STABLE: the planner inlines it where it is called (vetflow_upsert_contact below, and
-- `findMatch` in src/flow/contacts/contacts.repo.ts), so it costs what the query written inline did.
CREATE OR REPLACE FUNCTION vetflow_match_contact(
  p_workspace_id uuid,
  p_external_id text,
  p_document text,
  p_phone text,
  p_include_deleted boolean
) RETURNS SETOF contacts
  LANGUAGE sql STABLE
  AS $$
    SELECT c.* FROM contacts c
      WHERE c.workspace_id = p_workspace_id
        AND (c.external_id = p_external_id OR c.document = p_document OR c.phone = p_phone)
        AND (p_include_deleted OR c.deleted_at IS NULL)
      ORDER BY CASE WHEN c.external_id = p_external_id THEN 0 WHEN c.document = p_document THEN 1 ELSE 2 END,
        c.deleted_at IS NOT NULL, c.updated_at DESC
      LIMIT 1
  $$;--> statement-breakpoint
-- One field's entry of an audit row's `changes`, or nothing when the field did not change.
-- STABLE like jsonb_build_object, so that the planner inlines it (it never inlines an IMMUTABLE
-- function whose body is not, and a SQL function called instead is parsed and planned anew).
CREATE OR REPLACE FUNCTION vetflow_audit_change(field text, before text, after text, changed boolean) RETURNS jsonb
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN changed THEN jsonb_build_object(field, jsonb_build_object('before', before, 'after', after)) ELSE '{}'::jsonb END $$;--> statement-breakpoint
-- A new parameter and result column: the function with the previous signature goes first.
DROP FUNCTION IF EXISTS vetflow_upsert_contact(uuid, text[], text, text, text, text, text, text, text, text, uuid, text, text, text);--> statement-breakpoint
CREATE OR REPLACE FUNCTION vetflow_upsert_contact(
  p_workspace_id uuid,
  p_sent text[],
  p_external_id text,
  p_document text,
  p_name text,
  p_phone text,
  p_email text,
  p_address text,
  p_source text,
  p_profile_pic_url text,
  p_api_key_id uuid,
  p_api_key_prefix text,
  p_request_id text,
  p_ip text,
  p_in_batch boolean DEFAULT false,
  OUT contact contacts,
  OUT action text,
  OUT matched_by text,
  OUT warnings text[],
  OUT missing_field text,
  OUT audit jsonb
) LANGUAGE plpgsql AS $$
DECLARE
  m contacts;
  -- Which sent fields differ from the matched row's.
  ch_external_id boolean;
  ch_document boolean;
  ch_name boolean;
  ch_phone boolean;
  ch_email boolean;
  ch_address boolean;
  ch_source boolean;
  ch_profile_pic_url boolean;
  clear_name_edit boolean;
  clear_phone_edit boolean;
BEGIN
  -- Plain expressions rather than queries wherever possible: PL/pgSQL evaluates those without
  -- starting an executor, which is most of what a statement in here costs.
  --
  -- The matched row is locked, so concurrent upserts of one contact queue up and each applies
  -- to (and audits against) the version the one before it wrote. A create that loses a race (a
  -- concurrent upsert created the contact first) matches again; the fourth try lets a unique
  -- violation surface. In a batch the first try is that fourth one (see `p_in_batch` above).
  FOR attempt IN CASE WHEN p_in_batch THEN 4 ELSE 1 END..4 LOOP
    -- The match (vetflow_match_contact: the contract's order), deleted contacts included (they are
    -- restored), then locked. A concurrent upsert may have changed it while this one waited for
    -- the lock: it must still hold one of the identifiers, or this attempt matched nothing.
    SELECT c.* INTO m FROM contacts c
      WHERE c.id = (SELECT v.id FROM vetflow_match_contact(p_workspace_id, p_external_id, p_document, p_phone, true) v)
        AND (c.external_id = p_external_id OR c.document = p_document OR c.phone = p_phone)
      FOR UPDATE;

    IF NOT FOUND THEN
      -- Create: name and phone are required (never sent as NULL: the caller refuses that).
      IF p_name IS NULL THEN missing_field := 'name'; RETURN; END IF;
      IF p_phone IS NULL THEN missing_field := 'phone'; RETURN; END IF;
      IF attempt < 4 THEN
        INSERT INTO contacts (workspace_id, external_id, document, name, phone, email, address, source, profile_pic_url)
          VALUES (p_workspace_id, p_external_id, p_document, p_name, p_phone, p_email, p_address, p_source, p_profile_pic_url)
          ON CONFLICT DO NOTHING
          RETURNING * INTO contact;
        -- Nothing matched, yet a unique index holds the phone or external_id: a concurrent
        -- upsert created this contact since. Match again (it is visible now) and update it.
        CONTINUE WHEN NOT FOUND;
      ELSE
        INSERT INTO contacts (workspace_id, external_id, document, name, phone, email, address, source, profile_pic_url)
          VALUES (p_workspace_id, p_external_id, p_document, p_name, p_phone, p_email, p_address, p_source, p_profile_pic_url)
          RETURNING * INTO contact;
      END IF;
      action := 'created';
      matched_by := NULL;
      warnings := '{}';
      audit := vetflow_audit_change('external_id', NULL, p_external_id, p_external_id IS NOT NULL)
        || vetflow_audit_change('document', NULL, p_document, p_document IS NOT NULL)
        || vetflow_audit_change('name', NULL, p_name, true)
        || vetflow_audit_change('phone', NULL, p_phone, true)
        || vetflow_audit_change('email', NULL, p_email, p_email IS NOT NULL)
        || vetflow_audit_change('address', NULL, p_address, p_address IS NOT NULL)
        || vetflow_audit_change('source', NULL, p_source, p_source IS NOT NULL)
        || vetflow_audit_change('profile_pic_url', NULL, p_profile_pic_url, p_profile_pic_url IS NOT NULL);
    ELSE
      matched_by := CASE WHEN m.external_id = p_external_id THEN 'external_id'
        WHEN m.document = p_document THEN 'document' ELSE 'phone' END;
      ch_external_id := 'external_id' = ANY (p_sent) AND p_external_id IS DISTINCT FROM m.external_id;
      ch_document := 'document' = ANY (p_sent) AND p_document IS DISTINCT FROM m.document;
      ch_name := 'name' = ANY (p_sent) AND p_name IS DISTINCT FROM m.name;
      ch_phone := 'phone' = ANY (p_sent) AND p_phone IS DISTINCT FROM m.phone;
      ch_email := 'email' = ANY (p_sent) AND p_email IS DISTINCT FROM m.email;
      ch_address := 'address' = ANY (p_sent) AND p_address IS DISTINCT FROM m.address;
      ch_source := 'source' = ANY (p_sent) AND p_source IS DISTINCT FROM m.source;
      ch_profile_pic_url := 'profile_pic_url' = ANY (p_sent) AND p_profile_pic_url IS DISTINCT FROM m.profile_pic_url;
      warnings := '{}';

      -- Re-keying (see the top of this file): a new external_id for a contact matched by document
      -- or phone that has another one. Families share landlines: said, or refused by the workspace.
      IF ch_external_id AND p_external_id IS NOT NULL AND m.external_id IS NOT NULL THEN
        IF (SELECT w.external_id_rekeying FROM workspaces w WHERE w.id = p_workspace_id) = 'refuse' THEN
          RAISE EXCEPTION 'external_id re-keying refused' USING ERRCODE = 'VF409', DETAIL = m.id::text;
        END IF;
        warnings := warnings || 'external_id_replaced'::text;
      END IF;

      -- Sync policy: under `flow` a name or phone a CRM user edited is kept (with a warning);
      -- under `erp` the payload wins and the edit is forgotten (there is nothing left to protect).
      clear_name_edit := false;
      clear_phone_edit := false;
      IF (ch_name AND m.name_edited_at IS NOT NULL) OR (ch_phone AND m.phone_edited_at IS NOT NULL) THEN
        IF (SELECT w.contact_sync_policy FROM workspaces w WHERE w.id = p_workspace_id) = 'erp' THEN
          clear_name_edit := ch_name;
          clear_phone_edit := ch_phone;
        ELSE
          IF ch_name AND m.name_edited_at IS NOT NULL THEN
            ch_name := false;
            warnings := warnings || 'name_not_applied_user_edited_in_flow'::text;
          END IF;
          IF ch_phone AND m.phone_edited_at IS NOT NULL THEN
            ch_phone := false;
            warnings := warnings || 'phone_not_applied_user_edited_in_flow'::text;
          END IF;
        END IF;
      END IF;

      action := CASE WHEN m.deleted_at IS NULL THEN 'updated' ELSE 'restored' END;
      audit := vetflow_audit_change('external_id', m.external_id, p_external_id, ch_external_id)
        || vetflow_audit_change('document', m.document, p_document, ch_document)
        || vetflow_audit_change('name', m.name, p_name, ch_name)
        || vetflow_audit_change('phone', m.phone, p_phone, ch_phone)
        || vetflow_audit_change('email', m.email, p_email, ch_email)
        || vetflow_audit_change('address', m.address, p_address, ch_address)
        || vetflow_audit_change('source', m.source, p_source, ch_source)
        || vetflow_audit_change('profile_pic_url', m.profile_pic_url, p_profile_pic_url, ch_profile_pic_url)
        || vetflow_audit_change('deleted_at',
          to_char(m.deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), NULL, m.deleted_at IS NOT NULL);

      IF audit = '{}' THEN
        -- Nothing to write but the audit entry: the request still succeeded.
        contact := m;
      ELSE
        -- Unchanged columns are written back as read: the row is locked.
        UPDATE contacts c SET
          external_id = CASE WHEN ch_external_id THEN p_external_id ELSE m.external_id END,
          document = CASE WHEN ch_document THEN p_document ELSE m.document END,
          name = CASE WHEN ch_name THEN p_name ELSE m.name END,
          phone = CASE WHEN ch_phone THEN p_phone ELSE m.phone END,
          email = CASE WHEN ch_email THEN p_email ELSE m.email END,
          address = CASE WHEN ch_address THEN p_address ELSE m.address END,
          source = CASE WHEN ch_source THEN p_source ELSE m.source END,
          profile_pic_url = CASE WHEN ch_profile_pic_url THEN p_profile_pic_url ELSE m.profile_pic_url END,
          name_edited_at = CASE WHEN clear_name_edit THEN NULL ELSE m.name_edited_at END,
          name_edited_by = CASE WHEN clear_name_edit THEN NULL ELSE m.name_edited_by END,
          phone_edited_at = CASE WHEN clear_phone_edit THEN NULL ELSE m.phone_edited_at END,
          phone_edited_by = CASE WHEN clear_phone_edit THEN NULL ELSE m.phone_edited_by END,
          deleted_at = NULL,
          updated_at = now()
        WHERE c.id = m.id
        RETURNING c.* INTO contact;
      END IF;
    END IF;

    IF NOT p_in_batch THEN
      INSERT INTO contact_external_api_audit_logs
        (workspace_id, contact_id, api_key_id, api_key_prefix, action, changes, warnings, request_id, ip)
        VALUES (p_workspace_id, contact.id, p_api_key_id, p_api_key_prefix, action, audit, warnings, p_request_id, p_ip);
    END IF;
    RETURN;
  END LOOP;
  -- Unreachable: the fourth try updates or raises on insert.
  RAISE EXCEPTION 'vetflow_upsert_contact: no attempt succeeded';
END;
$$;
