DROP INDEX "notes_clinic_created_idx";--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "name_folded" text GENERATED ALWAYS AS (vetflow_fold(name)) STORED;--> statement-breakpoint
CREATE INDEX "notes_name_folded_trgm_idx" ON "notes" USING gin (name_folded gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "notes_clinic_created_idx" ON "notes" USING btree ("clinic_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST,"name_folded","transcription_status");--> statement-breakpoint
-- Hand-written: the trigram index over the expression (0004, not in the schema) gives way to the one over the stored fold.
DROP INDEX IF EXISTS "notes_name_fold_trgm_idx";
