ALTER TABLE "clinic_settings" ADD COLUMN "reference_ranges" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "species" text;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "vitals" jsonb DEFAULT '[]'::jsonb NOT NULL;