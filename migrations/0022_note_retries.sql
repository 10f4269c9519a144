CREATE TABLE "note_retries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"note_id" uuid NOT NULL,
	"clinic_id" uuid NOT NULL,
	"audio_duration_seconds" real NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "note_retries" ADD CONSTRAINT "note_retries_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "note_retries" ADD CONSTRAINT "note_retries_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "note_retries_clinic_created_idx" ON "note_retries" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "note_retries_note_idx" ON "note_retries" USING btree ("note_id");