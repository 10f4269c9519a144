CREATE TABLE "contact_change_floors" (
	"workspace_id" uuid PRIMARY KEY NOT NULL,
	"position" bigint NOT NULL,
	"change_id" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contact_changes" ADD COLUMN "change" text;--> statement-breakpoint
-- What each version already in the feed was: a contact's first version is its creation.
UPDATE "contact_changes" c SET "change" = v.change FROM (
  SELECT id, CASE
    WHEN row_number() OVER (PARTITION BY contact_id ORDER BY position, id) = 1 THEN 'created'
    WHEN deleted THEN 'deleted'
    WHEN 'deleted' = ANY (changed_fields) THEN 'restored'
    ELSE 'updated' END AS change
  FROM "contact_changes") v
  WHERE v.id = c.id;--> statement-breakpoint
ALTER TABLE "contact_changes" ALTER COLUMN "change" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "crm_users" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
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