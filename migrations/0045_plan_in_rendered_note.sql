-- SOURCE OF TRUTH for the rendered note (note_renders): never edit it in a migration by hand:
-- change this file, then `npm run db:function -- src/notes/store/note-render.sql <what_changed>`
-- writes a migration with its content (which also renders every note again, below).
--
-- GET /notes/{id} serves note_renders.body as it is (docs/notes-reads.md): the note as the API
-- shows it, the same JSON as toNoteBody() in note-view.ts (which stays the reference:
-- test/notes/rendered-note.test.ts compares the two after every kind of write). It is written here,
-- by triggers, so that every write path (the API's, the jobs', a bulk statement, an operator's SQL)
-- renders the note again in its own transaction, at the end of the statement that changed it; no
-- code path can forget it. Statement-level triggers with transition tables: a statement renders
-- each note it touched once (a completion that replaces six sections renders the note once for the
-- note row, once for the deletes and once for the inserts; a bulk insert renders each note once).
--
-- What the body cannot hold: the public base URL (configuration of the serving process, not of the
-- note). `transcription_url` is stored as a path, `/notes/v1/notes/{id}/transcription`, and the
-- server puts its base URL in front when it serves it. Nothing else in the body depends on the
-- request or on the time of the read.
--
-- The format is json_build_object's: the same keys in the same order as toNoteBody, whitespace
-- around `:` and `,` (JSON parsers do not see it). Timestamps are whole seconds in UTC with `Z`
-- (toTimestamp truncates the same way); the capture's seconds are rounded to 0.01 as captureOf
-- does it on the float4 value the driver reads (its shortest text, as float8).
CREATE OR REPLACE FUNCTION vetflow_api_timestamp(at timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
$$;--> statement-breakpoint
-- The notes `ids` as the API shows them: (note_id, clinic_id, body).
CREATE OR REPLACE FUNCTION vetflow_note_bodies(ids uuid[]) RETURNS TABLE (note_id uuid, clinic_id uuid, body text) LANGUAGE sql STABLE AS $$
  -- Objects with optional keys (capture, failure) are joined from parts, braces cut, in key order
  -- (each part named once: the planner copies a lateral's expression into every place it is used).
  SELECT n.id, n.clinic_id, '{' || concat_ws(', ',
    left(substr(h.head::text, 2), -1),
    left(substr(c.capture::text, 2), -1),
    left(substr(m.middle::text, 2), -1),
    left(substr(f.failed::text, 2), -1),
    left(substr(t.tail::text, 2), -1)) || '}'
  FROM notes n,
  LATERAL (SELECT n.transcription_status = 'completed' AS completed) s,
  LATERAL (SELECT json_build_object(
    'id', n.id,
    'name', n.name,
    'gender', n.gender,
    'audio_name', n.audio_name,
    'transcription_status', n.transcription_status,
    'transcription_url', CASE WHEN s.completed THEN '/notes/v1/notes/' || n.id || '/transcription' END,
    'external_id', n.external_id,
    'metadata', n.metadata,
    'note_style', n.note_style,
    'record_status', n.record_status,
    'species', n.species,
    'template', CASE WHEN n.template IS NULL THEN json_build_object('slug', 'padrao', 'name', 'Padrão')
      ELSE json_build_object('slug', n.template->>'slug', 'name', n.template->>'name') END) AS head) h,
  LATERAL (SELECT CASE WHEN n.capture_state IS NOT NULL THEN json_build_object('capture', json_build_object(
    'state', CASE WHEN n.capture_state = 'open' THEN 'open' ELSE 'closed' END,
    'parts', n.capture_parts,
    'seconds', floor(n.audio_duration_seconds::text::float8 * 100 + 0.5) / 100)) END AS capture) c,
  LATERAL (SELECT json_build_object(
    'simulated', n.simulated,
    'note_sections', CASE WHEN s.completed THEN coalesce((
      SELECT json_agg(json_build_object(
        'id', x.id, 'note_id', x.note_id, 'title', x.title, 'label', x.label, 'content', x.content,
        'evidence', x.evidence, 'order', x."order",
        'created_at', vetflow_api_timestamp(x.created_at), 'updated_at', vetflow_api_timestamp(x.updated_at))
        ORDER BY x.position, x.id)
      FROM note_sections x WHERE x.note_id = n.id), '[]'::json) ELSE '[]'::json END,
    'review_flags', CASE WHEN s.completed THEN n.review_flags ELSE '[]'::jsonb END,
    'signature', (SELECT json_build_object(
      'signed_by', json_build_object('name', g.signed_by_name, 'license', g.signed_by_license),
      'signed_at', vetflow_api_timestamp(g.signed_at),
      'key_id', g.key_id,
      'flags_acknowledged', g.flags_acknowledged,
      'content_sha256', g.content_sha256) FROM note_signatures g WHERE g.note_id = n.id),
    'vitals', CASE WHEN s.completed THEN n.vitals ELSE '[]'::jsonb END,
    'audio', json_build_object('available', n.audio_deleted_at IS NULL, 'deleted_at', vetflow_api_timestamp(n.audio_deleted_at)),
    'visit_date', to_char(n.visit_date, 'YYYY-MM-DD'),
    -- A note completed before plans existed shows empty lists, as toNoteBody (docs/notes-plan.md).
    'plan', CASE WHEN s.completed THEN coalesce(n.plan,
      '{"medications": [], "exams": [], "vaccines": [], "follow_ups": []}'::jsonb) END) AS middle) m,
  LATERAL (SELECT CASE WHEN n.transcription_status = 'failed' AND n.failure IS NOT NULL AND jsonb_typeof(n.failure) <> 'null'
    THEN json_build_object('failure', n.failure) END AS failed) f,
  LATERAL (SELECT json_build_object(
    'created_at', vetflow_api_timestamp(n.created_at),
    'updated_at', vetflow_api_timestamp(n.updated_at)) AS tail) t
  -- A semi-join on the ids (not `= ANY`, which scans the array for each row): a bulk insert renders thousands at once.
  WHERE n.id IN (SELECT unnest(ids))
$$;--> statement-breakpoint
-- Renders the notes `ids` again. `lock`: take each note's row first (in id order), so that the
-- render reads the note after any other transaction that changes it has committed: writers that
-- change only a note's sections or signature render under the same lock as writers of the note
-- row, and the last to commit writes the last render. Updates of the note row hold it already, and
-- inserted notes are seen by no one else yet.
CREATE OR REPLACE FUNCTION vetflow_render_notes(ids uuid[], lock boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  IF lock THEN
    PERFORM 1 FROM notes WHERE id IN (SELECT unnest(ids)) ORDER BY id FOR NO KEY UPDATE;
  END IF;
  -- A note deleted in this statement (an erasure cascading to its sections) is not found: its
  -- render goes with it (ON DELETE CASCADE).
  INSERT INTO note_renders AS r (note_id, clinic_id, body)
    SELECT * FROM vetflow_note_bodies(ids)
    ON CONFLICT (note_id) DO UPDATE SET clinic_id = excluded.clinic_id, body = excluded.body;
END;
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION vetflow_render_changed_notes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each transition table exists only for its own event: read only the one(s) this one declares.
  IF TG_TABLE_NAME = 'notes' AND TG_OP = 'INSERT' THEN
    -- A bulk insert of more than 1,000 notes (an import, a benchmark's seed) is not rendered here:
    -- rendering costs ~0.1 ms a note, minutes for a million. Such a note is served assembled from its
    -- rows (as a note without a render always is) until its first change renders it.
    IF (SELECT count(*) FROM new_rows) <= 1000 THEN
      PERFORM vetflow_render_notes(ARRAY(SELECT id FROM new_rows), false);
    END IF;
  ELSIF TG_TABLE_NAME = 'notes' THEN
    -- Only notes whose shown columns changed (not the transcript, the attempts, the audio's key...).
    PERFORM vetflow_render_notes(ARRAY(
      SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE (n.clinic_id, n.name, n.gender, n.audio_name, n.transcription_status, n.external_id, n.metadata, n.note_style,
        n.record_status, n.species, n.template, n.capture_state, n.capture_parts, n.audio_duration_seconds, n.simulated,
        n.review_flags, n.vitals, n.audio_deleted_at, n.failure, n.created_at, n.updated_at, n.visit_date, n.plan)
      IS DISTINCT FROM (o.clinic_id, o.name, o.gender, o.audio_name, o.transcription_status, o.external_id, o.metadata,
        o.note_style, o.record_status, o.species, o.template, o.capture_state, o.capture_parts, o.audio_duration_seconds,
        o.simulated, o.review_flags, o.vitals, o.audio_deleted_at, o.failure, o.created_at, o.updated_at, o.visit_date, o.plan)), false);
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM vetflow_render_notes(ARRAY(SELECT DISTINCT note_id FROM new_rows), true);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM vetflow_render_notes(ARRAY(SELECT DISTINCT note_id FROM old_rows), true);
  ELSE
    PERFORM vetflow_render_notes(ARRAY(SELECT note_id FROM old_rows UNION SELECT note_id FROM new_rows), true);
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- The note row: inserts, and updates that change a column the body shows (an update of others,
-- such as the transcript, the attempts or the audio's storage key, leaves the body as it is).
CREATE OR REPLACE TRIGGER notes_render_after_insert AFTER INSERT ON notes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_render_changed_notes();--> statement-breakpoint
CREATE OR REPLACE TRIGGER notes_render_after_update AFTER UPDATE ON notes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_render_changed_notes();--> statement-breakpoint
-- Sections and the signature, whatever changes them.
CREATE OR REPLACE TRIGGER note_sections_render_after_insert AFTER INSERT ON note_sections
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_render_changed_notes();--> statement-breakpoint
CREATE OR REPLACE TRIGGER note_sections_render_after_update AFTER UPDATE ON note_sections
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_render_changed_notes();--> statement-breakpoint
CREATE OR REPLACE TRIGGER note_sections_render_after_delete AFTER DELETE ON note_sections
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_render_changed_notes();--> statement-breakpoint
CREATE OR REPLACE TRIGGER note_signatures_render_after_insert AFTER INSERT ON note_signatures
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_render_changed_notes();--> statement-breakpoint
CREATE OR REPLACE TRIGGER note_signatures_render_after_update AFTER UPDATE ON note_signatures
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_render_changed_notes();--> statement-breakpoint
CREATE OR REPLACE TRIGGER note_signatures_render_after_delete AFTER DELETE ON note_signatures
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_render_changed_notes();--> statement-breakpoint
-- Every note rendered with this version of the body: the notes written before it (the backfill),
-- and all notes again whenever this file changes what the body holds.
INSERT INTO note_renders AS r (note_id, clinic_id, body)
  SELECT * FROM vetflow_note_bodies(ARRAY(SELECT id FROM notes))
  ON CONFLICT (note_id) DO UPDATE SET clinic_id = excluded.clinic_id, body = excluded.body;
