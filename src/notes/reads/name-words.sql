-- SOURCE OF TRUTH for the function and triggers that keep note_name_words and note_name_dictionary:
-- never edit them in a migration by hand: change this file, then `npm run db:function --
-- src/notes/reads/name-words.sql <what_changed>` writes a migration with its content.
--
-- A name search (note-list.repo.ts, docs/notes-reads.md) turns each word of the search into the
-- words of the clinic's note names that can hold it (note_name_dictionary), then walks the notes of
-- one of those words newest first (note_name_words_walk_idx) checking the whole folded name. Both
-- tables hold patients' names: they change with the note, in its transaction, whoever writes it
-- (the upload, the live capture, an erasure, a clinic deleted, an operator's SQL, a bulk seed).
--
-- A note's words: its folded name split on single spaces, each distinct non-empty piece once.
CREATE OR REPLACE FUNCTION vetflow_name_words(folded text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT w), '{}') FROM unnest(string_to_array(folded, ' ')) AS w WHERE w <> ''
$$;--> statement-breakpoint
-- The dictionary holds a word while a note of the clinic holds it. A writer of a note's words
-- share-locks their dictionary rows (FOR KEY SHARE, held until it commits) after inserting them; a
-- remover locks them FOR UPDATE, then deletes those no note holds any more, in a later statement
-- (so it sees the words a writer it waited for committed). A word removed while a writer waited
-- for the remover is inserted again by the writer's next round.
CREATE OR REPLACE FUNCTION vetflow_note_name_words_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  added_clinics uuid[];
  added_words text[];
  removed_clinics uuid[];
  removed_words text[];
  locked integer;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE note_name_words;
    DELETE FROM note_name_dictionary;
    RETURN NULL;
  END IF;
  -- Each transition table exists only for its own event: read only the one(s) this one declares.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO note_name_words (clinic_id, word, created_at, note_id, name_folded, transcription_status)
      SELECT n.clinic_id, x.word, n.created_at, n.id, n.name_folded, n.transcription_status FROM new_rows n, unnest(vetflow_name_words(n.name_folded)) AS x(word);
    SELECT array_agg(clinic_id ORDER BY clinic_id, word), array_agg(word ORDER BY clinic_id, word) INTO added_clinics, added_words
      FROM (SELECT DISTINCT n.clinic_id, x.word FROM new_rows n, unnest(vetflow_name_words(n.name_folded)) AS x(word)) a;
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM note_name_words w USING old_rows o, unnest(vetflow_name_words(o.name_folded)) AS x(word)
      WHERE w.clinic_id = o.clinic_id AND w.word = x.word AND w.created_at = o.created_at AND w.note_id = o.id;
    SELECT array_agg(clinic_id ORDER BY clinic_id, word), array_agg(word ORDER BY clinic_id, word) INTO removed_clinics, removed_words
      FROM (SELECT DISTINCT o.clinic_id, x.word FROM old_rows o, unnest(vetflow_name_words(o.name_folded)) AS x(word)) r;
  ELSE
    -- A status change (the worker's claim, completion, failure; a retry) is written on the note's entries.
    UPDATE note_name_words w SET transcription_status = n.transcription_status
      FROM new_rows n JOIN old_rows o ON o.id = n.id, unnest(vetflow_name_words(n.name_folded)) AS x(word)
      WHERE n.transcription_status IS DISTINCT FROM o.transcription_status
        AND (n.clinic_id, n.created_at, n.name_folded) IS NOT DISTINCT FROM (o.clinic_id, o.created_at, o.name_folded)
        AND w.clinic_id = n.clinic_id AND w.word = x.word AND w.created_at = n.created_at AND w.note_id = n.id;
    -- Most updates (status, transcript, sections...) leave the name, the clinic and the date alone.
    IF NOT EXISTS (SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
                    WHERE (n.clinic_id, n.created_at, n.name_folded) IS DISTINCT FROM (o.clinic_id, o.created_at, o.name_folded)) THEN
      RETURN NULL;
    END IF;
    DELETE FROM note_name_words w USING old_rows o JOIN new_rows n ON n.id = o.id, unnest(vetflow_name_words(o.name_folded)) AS x(word)
      WHERE (n.clinic_id, n.created_at, n.name_folded) IS DISTINCT FROM (o.clinic_id, o.created_at, o.name_folded)
        AND w.clinic_id = o.clinic_id AND w.word = x.word AND w.created_at = o.created_at AND w.note_id = o.id;
    INSERT INTO note_name_words (clinic_id, word, created_at, note_id, name_folded, transcription_status)
      SELECT n.clinic_id, x.word, n.created_at, n.id, n.name_folded, n.transcription_status
        FROM new_rows n JOIN old_rows o ON o.id = n.id, unnest(vetflow_name_words(n.name_folded)) AS x(word)
        WHERE (n.clinic_id, n.created_at, n.name_folded) IS DISTINCT FROM (o.clinic_id, o.created_at, o.name_folded);
    SELECT array_agg(clinic_id ORDER BY clinic_id, word), array_agg(word ORDER BY clinic_id, word) INTO removed_clinics, removed_words
      FROM (SELECT DISTINCT o.clinic_id, x.word FROM old_rows o JOIN new_rows n ON n.id = o.id, unnest(vetflow_name_words(o.name_folded)) AS x(word)
             WHERE (n.clinic_id, n.created_at, n.name_folded) IS DISTINCT FROM (o.clinic_id, o.created_at, o.name_folded)) r;
    SELECT array_agg(clinic_id ORDER BY clinic_id, word), array_agg(word ORDER BY clinic_id, word) INTO added_clinics, added_words
      FROM (SELECT DISTINCT n.clinic_id, x.word FROM new_rows n JOIN old_rows o ON o.id = n.id, unnest(vetflow_name_words(n.name_folded)) AS x(word)
             WHERE (n.clinic_id, n.created_at, n.name_folded) IS DISTINCT FROM (o.clinic_id, o.created_at, o.name_folded)) a;
  END IF;
  IF removed_words IS NOT NULL THEN
    PERFORM 1 FROM note_name_dictionary d JOIN unnest(removed_clinics, removed_words) AS k(clinic_id, word)
      ON d.clinic_id = k.clinic_id AND d.word = k.word ORDER BY d.clinic_id, d.word FOR UPDATE OF d;
    DELETE FROM note_name_dictionary d USING unnest(removed_clinics, removed_words) AS k(clinic_id, word)
      WHERE d.clinic_id = k.clinic_id AND d.word = k.word
        AND NOT EXISTS (SELECT 1 FROM note_name_words w WHERE w.clinic_id = k.clinic_id AND w.word = k.word);
  END IF;
  IF added_words IS NOT NULL THEN
    LOOP
      -- Only clinics that exist: a note's insert already checked its clinic, and a deleted clinic takes its words.
      INSERT INTO note_name_dictionary (clinic_id, word)
        SELECT k.clinic_id, k.word FROM unnest(added_clinics, added_words) AS k(clinic_id, word) ON CONFLICT DO NOTHING;
      SELECT count(*) INTO locked FROM (
        SELECT 1 FROM note_name_dictionary d JOIN unnest(added_clinics, added_words) AS k(clinic_id, word)
          ON d.clinic_id = k.clinic_id AND d.word = k.word ORDER BY d.clinic_id, d.word FOR KEY SHARE OF d) l;
      EXIT WHEN locked = cardinality(added_words);
    END LOOP;
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- A trigger with transition tables serves one event only: one trigger per event, one function.
CREATE OR REPLACE TRIGGER notes_name_words_after_insert AFTER INSERT ON notes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_note_name_words_changed();--> statement-breakpoint
CREATE OR REPLACE TRIGGER notes_name_words_after_update AFTER UPDATE ON notes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_note_name_words_changed();--> statement-breakpoint
CREATE OR REPLACE TRIGGER notes_name_words_after_delete AFTER DELETE ON notes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_note_name_words_changed();--> statement-breakpoint
CREATE OR REPLACE TRIGGER notes_name_words_after_truncate AFTER TRUNCATE ON notes
  FOR EACH STATEMENT EXECUTE FUNCTION vetflow_note_name_words_changed();--> statement-breakpoint
-- A walk reads a few thousand entries at most before it stops: a parallel plan's start costs more.
ALTER TABLE note_name_words SET (parallel_workers = 0);--> statement-breakpoint
-- The notes written before these triggers.
INSERT INTO note_name_words (clinic_id, word, created_at, note_id, name_folded, transcription_status)
  SELECT n.clinic_id, x.word, n.created_at, n.id, n.name_folded, n.transcription_status FROM notes n, unnest(vetflow_name_words(n.name_folded)) AS x(word)
  ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO note_name_dictionary (clinic_id, word) SELECT DISTINCT clinic_id, word FROM note_name_words ON CONFLICT DO NOTHING;
