ALTER TABLE "clinic_settings" ADD COLUMN "timezone" text DEFAULT 'America/Sao_Paulo' NOT NULL;--> statement-breakpoint
ALTER TABLE "clinic_settings" ADD COLUMN "drug_names" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "plan" jsonb;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "visit_date" date;