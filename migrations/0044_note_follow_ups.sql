CREATE TABLE "note_follow_ups" (
	"item_id" uuid NOT NULL,
	"note_id" uuid NOT NULL,
	"clinic_id" uuid NOT NULL,
	"due_date" date NOT NULL,
	"position" integer NOT NULL,
	"kind" text NOT NULL,
	"text" text NOT NULL,
	CONSTRAINT "note_follow_ups_pkey" PRIMARY KEY("note_id","position")
);
--> statement-breakpoint
ALTER TABLE "note_follow_ups" ADD CONSTRAINT "note_follow_ups_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "note_follow_ups" ADD CONSTRAINT "note_follow_ups_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "note_follow_ups_clinic_due_idx" ON "note_follow_ups" USING btree ("clinic_id","due_date","note_id","position");