CREATE TABLE "note_renders" (
	"note_id" uuid PRIMARY KEY NOT NULL,
	"clinic_id" uuid NOT NULL,
	"body" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "note_renders" ADD CONSTRAINT "note_renders_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;