ALTER TABLE "note_amendments" ADD COLUMN "hash_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "note_amendments" ADD COLUMN "covered_state" jsonb;--> statement-breakpoint
ALTER TABLE "note_signatures" ADD COLUMN "hash_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "note_signatures" ADD COLUMN "covered_state" jsonb;