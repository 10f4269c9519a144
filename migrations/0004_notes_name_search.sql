-- Accent- and case-insensitive partial match on patient names ("joao" finds "João"), fast on a
-- clinic with a million notes: a trigram index over the folded name.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
-- unaccent() is only STABLE (its dictionary could change); pinning the dictionary makes this
-- wrapper safe to mark IMMUTABLE, which an index expression requires.
CREATE OR REPLACE FUNCTION vetflow_fold(value text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, value)) $$;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS notes_name_fold_trgm_idx ON notes USING gin (vetflow_fold(name) gin_trgm_ops);
