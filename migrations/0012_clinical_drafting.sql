ALTER TABLE "note_sections" ADD COLUMN "evidence" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "note_style" text DEFAULT 'verbatim' NOT NULL;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "review_flags" jsonb DEFAULT '[]'::jsonb NOT NULL;