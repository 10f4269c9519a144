-- SOURCE OF TRUTH for the triggers that keep note_list_versions: never edit them in a migration by
-- hand: change this file, then `npm run db:function -- src/notes/store/note-list-version.sql
-- <what_changed>` writes a migration with its content, and test/notes/note-list-version.test.ts
-- checks that the deployed function and triggers are this file's. First deployed by
-- migrations/0018_note_list_version_triggers.sql.
--
-- The note list caches its counts per process, each with the clinic's version it was counted at
-- (list-count-cache.ts, docs/notes-reads.md). A count stays valid while the version stays the same,
-- so the version must change, in the same transaction, with every write that could change which
-- notes of the clinic match a filter: an insert, a delete, and any update (the filters read
-- clinic_id, transcription_status, name, created_at and external_id; bumping on every update is
-- simpler and cannot miss a column a future filter reads). In the database, so that no write path
-- (the upload, the jobs, the retry, an operator's SQL, a cascade from clinics) can forget it.
--
-- Statement-level, with transition tables: a statement bumps each clinic it touched once, whatever
-- the number of rows (the benchmark seeds a million notes in one INSERT ... SELECT). The version
-- row is locked until the writing transaction ends, so writers of one clinic's notes queue behind
-- each other at this row; clinics are bumped in id order so two multi-clinic statements cannot
-- deadlock on them.
--
-- The clinic row is share-locked (FOR KEY SHARE, as a foreign key check does) before its version
-- row, so that every holder of a version row also holds that lock. An upload locks the clinic row
-- FOR UPDATE (the quota check) before it inserts its note; without this, a completing note's
-- transaction could hold the version row, then wait for the clinic row to insert its webhook event
-- (a foreign key check) while the upload, holding the clinic row, waits for the version row: a
-- deadlock. Now the upload waits for the clinic row until that transaction ends, or takes it first.
--
-- A clinic's first bump inserts version 1: a missing row reads as version 0 (never changed since
-- this trigger exists; counts of notes written before it are still counted, at version 0, the
-- first time they are asked). Rows are removed only with their clinic, so a clinic's version never
-- returns to a value it had. Only clinics that still exist are bumped: deleting a clinic cascades
-- to its notes, and their DELETE would otherwise insert a version row for a clinic that is gone.
-- Not covered: writes that fire no triggers (session_replication_role = replica, e.g. a logical
-- replication apply or pg_restore --disable-triggers): restart the processes after one.
CREATE OR REPLACE FUNCTION vetflow_bump_note_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed uuid[];
BEGIN
  -- Each transition table exists only for its own event: read only the one(s) this one declares.
  IF TG_OP = 'INSERT' THEN
    changed := ARRAY(SELECT DISTINCT clinic_id FROM new_notes);
  ELSIF TG_OP = 'DELETE' THEN
    changed := ARRAY(SELECT DISTINCT clinic_id FROM old_notes);
  ELSIF TG_OP = 'UPDATE' THEN
    changed := ARRAY(SELECT clinic_id FROM old_notes UNION SELECT clinic_id FROM new_notes);
  ELSE
    -- TRUNCATE has no transition table: every clinic.
    changed := ARRAY(SELECT id FROM clinics);
  END IF;
  INSERT INTO note_list_versions AS v (clinic_id, version)
    SELECT id, 1 FROM clinics WHERE id = ANY (changed) ORDER BY id FOR KEY SHARE
    ON CONFLICT (clinic_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- A trigger with transition tables serves one event only: one trigger per event, one function.
CREATE OR REPLACE TRIGGER notes_list_version_after_insert AFTER INSERT ON notes
  REFERENCING NEW TABLE AS new_notes FOR EACH STATEMENT EXECUTE FUNCTION vetflow_bump_note_list_version();--> statement-breakpoint
CREATE OR REPLACE TRIGGER notes_list_version_after_update AFTER UPDATE ON notes
  REFERENCING OLD TABLE AS old_notes NEW TABLE AS new_notes FOR EACH STATEMENT EXECUTE FUNCTION vetflow_bump_note_list_version();--> statement-breakpoint
CREATE OR REPLACE TRIGGER notes_list_version_after_delete AFTER DELETE ON notes
  REFERENCING OLD TABLE AS old_notes FOR EACH STATEMENT EXECUTE FUNCTION vetflow_bump_note_list_version();--> statement-breakpoint
CREATE OR REPLACE TRIGGER notes_list_version_after_truncate AFTER TRUNCATE ON notes
  FOR EACH STATEMENT EXECUTE FUNCTION vetflow_bump_note_list_version();
