CREATE TABLE "note_owner_summaries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"note_id" uuid NOT NULL,
	"clinic_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"text" text NOT NULL,
	"style" text NOT NULL,
	"review_flags" jsonb NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"content_sha256" text,
	"approved_by" jsonb,
	"approved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "note_owner_summary_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"summary_id" uuid NOT NULL,
	"note_id" uuid NOT NULL,
	"clinic_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"chat_id" uuid NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "clinic_settings" ADD COLUMN "crm_link" jsonb;--> statement-breakpoint
ALTER TABLE "clinic_settings" ADD COLUMN "owner_summary_template" jsonb;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "tutor" jsonb;--> statement-breakpoint
ALTER TABLE "note_owner_summaries" ADD CONSTRAINT "note_owner_summaries_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "note_owner_summaries" ADD CONSTRAINT "note_owner_summaries_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "note_owner_summary_deliveries" ADD CONSTRAINT "note_owner_summary_deliveries_summary_id_note_owner_summaries_id_fk" FOREIGN KEY ("summary_id") REFERENCES "public"."note_owner_summaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "note_owner_summary_deliveries" ADD CONSTRAINT "note_owner_summary_deliveries_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "note_owner_summaries_note_version_idx" ON "note_owner_summaries" USING btree ("note_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "note_owner_summary_deliveries_message_idx" ON "note_owner_summary_deliveries" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "note_owner_summary_deliveries_summary_idx" ON "note_owner_summary_deliveries" USING btree ("summary_id","created_at");