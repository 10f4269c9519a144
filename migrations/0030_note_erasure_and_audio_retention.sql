CREATE TABLE "note_erasures" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"note_id" uuid,
	"external_id_sha256" text,
	"notes_deleted" integer NOT NULL,
	"key_id" uuid NOT NULL,
	"reason" text,
	"quota_seconds" real DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "clinic_settings" ADD COLUMN "audio_retention_days" integer;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "audio_deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "note_erasures" ADD CONSTRAINT "note_erasures_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "note_erasures_clinic_created_idx" ON "note_erasures" USING btree ("clinic_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "note_erasures_created_idx" ON "note_erasures" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "notes_audio_kept_idx" ON "notes" USING btree ("clinic_id","completed_at","id") WHERE audio_deleted_at is null and transcription_status = 'completed';