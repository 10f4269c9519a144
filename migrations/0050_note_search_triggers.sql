-- SOURCE OF TRUTH for the text search configuration, function and triggers that keep
-- note_search_documents: never edit them in a migration by hand: change this file, then
-- `npm run db:function -- src/notes/reads/note-search.sql <what_changed>` writes a migration with
-- its content, and test/notes/list-content-search.test.ts checks that what is deployed is this file's.
--
-- A content search (`GET /notes?q=`, content-search.repo.ts, docs/notes-reads.md) matches one
-- tsvector per note: the patient's name and the current text of every section. It is written here,
-- by triggers, in the statement that inserts a note, renames it, or inserts, edits (an edit, an
-- amendment, the vitals re-extraction's section write) or deletes its sections, so no write path
-- (the worker's completion, the API's edits, an operator's SQL) can leave a note findable by text
-- it no longer holds; an erased note's document goes with it (ON DELETE CASCADE).
--
-- `vetflow_portuguese`: Portuguese stems over unaccented words. Stemming after unaccent is what
-- makes "vômito", "vomito" and "vomitou" one lexeme (`vomit`) and "otites" find "otite"; case is
-- folded by the stemmer. The same configuration parses the query, and ts_headline marks the words
-- of the original (accented) text with it. Created once: a configuration has no CREATE OR REPLACE.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'vetflow_portuguese') THEN
    CREATE TEXT SEARCH CONFIGURATION public.vetflow_portuguese (COPY = pg_catalog.portuguese);
    ALTER TEXT SEARCH CONFIGURATION public.vetflow_portuguese
      ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, portuguese_stem;
  END IF;
END
$$;--> statement-breakpoint
-- Writes the documents of the notes `ids` again: the name, then each section's content in the
-- note's order. A note deleted in the same statement is not found (its document goes with it). An
-- unchanged document is not rewritten, so a write that changes no text raises no list version.
CREATE OR REPLACE FUNCTION vetflow_index_notes_for_search(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO note_search_documents AS d (note_id, clinic_id, created_at, document)
    SELECT n.id, n.clinic_id, n.created_at,
      to_tsvector('public.vetflow_portuguese', n.name) || coalesce((
        SELECT to_tsvector('public.vetflow_portuguese', string_agg(s.content, E'\n' ORDER BY s.position, s.id))
        FROM note_sections s WHERE s.note_id = n.id), ''::tsvector)
    FROM notes n WHERE n.id IN (SELECT unnest(ids))
    ON CONFLICT (note_id) DO UPDATE SET document = excluded.document
    WHERE d.document IS DISTINCT FROM excluded.document;
END;
$$;--> statement-breakpoint
-- The notes a statement on notes or note_sections touched. A note's update matters only when its
-- name changed (statuses, attempts and the rest do not change what is searched).
CREATE OR REPLACE FUNCTION vetflow_note_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
BEGIN
  IF TG_TABLE_NAME = 'notes' THEN
    IF TG_OP = 'INSERT' THEN
      -- An INSERT of more than 1,000 notes at once (an import, the benchmark's seed of a million) is
      -- left to the statements that write its sections, as the rendered note leaves it
      -- (note-render.sql): indexing every name would hold such an insert for minutes. Uploads and
      -- live notes insert one note at a time.
      IF EXISTS (SELECT 1 FROM new_rows OFFSET 1000) THEN
        RETURN NULL;
      END IF;
      -- A new note has no sections yet (they are inserted by later statements, which index them):
      -- its name alone, straight from the transition table, the cheapest write there is.
      -- The stored fold through the plain Portuguese stems gives the same lexemes as the name through
      -- vetflow_portuguese (unaccent, then the same stems), at half the cost (no dictionary lookup).
      INSERT INTO note_search_documents (note_id, clinic_id, created_at, document)
        SELECT id, clinic_id, created_at, to_tsvector('pg_catalog.portuguese', name_folded) FROM new_rows;
      RETURN NULL;
    ELSE
      ids := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.name IS DISTINCT FROM o.name);
    END IF;
  ELSIF TG_OP = 'INSERT' THEN
    ids := ARRAY(SELECT DISTINCT note_id FROM new_rows);
  ELSIF TG_OP = 'DELETE' THEN
    ids := ARRAY(SELECT DISTINCT note_id FROM old_rows);
  ELSE
    ids := ARRAY(SELECT n.note_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.content IS DISTINCT FROM o.content
                 UNION SELECT o.note_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.note_id IS DISTINCT FROM o.note_id);
  END IF;
  PERFORM vetflow_index_notes_for_search(ids);
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE OR REPLACE TRIGGER notes_search_after_insert AFTER INSERT ON notes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_note_search_changed();--> statement-breakpoint
CREATE OR REPLACE TRIGGER notes_search_after_update AFTER UPDATE ON notes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_note_search_changed();--> statement-breakpoint
CREATE OR REPLACE TRIGGER note_sections_search_after_insert AFTER INSERT ON note_sections
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_note_search_changed();--> statement-breakpoint
CREATE OR REPLACE TRIGGER note_sections_search_after_update AFTER UPDATE ON note_sections
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_note_search_changed();--> statement-breakpoint
CREATE OR REPLACE TRIGGER note_sections_search_after_delete AFTER DELETE ON note_sections
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION vetflow_note_search_changed();--> statement-breakpoint
-- A search's total is cached per clinic until the clinic's notes-list version changes
-- (list-count-cache.ts): a changed document changes which notes a `q` matches without touching
-- the note row, so it raises the version too, in its transaction (the same function as the notes'
-- triggers; inserts and deletes of documents come with a note's insert or delete, which raise it).
CREATE OR REPLACE TRIGGER note_search_documents_list_version_after_update AFTER UPDATE ON note_search_documents
  REFERENCING OLD TABLE AS old_notes NEW TABLE AS new_notes FOR EACH STATEMENT EXECUTE FUNCTION vetflow_bump_note_list_version();--> statement-breakpoint
-- Every note there is, once (a new deployment of this file writes them all again; unchanged ones are skipped).
SELECT vetflow_index_notes_for_search(ARRAY(SELECT id FROM notes));--> statement-breakpoint
ANALYZE note_search_documents;
