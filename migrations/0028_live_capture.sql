CREATE TABLE "note_parts" (
	"note_id" uuid NOT NULL,
	"part" integer NOT NULL,
	"storage_key" text NOT NULL,
	"format" text NOT NULL,
	"bytes" bigint NOT NULL,
	"seconds" double precision NOT NULL,
	"sha256" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"transcript" jsonb,
	"overlap_seconds" double precision,
	CONSTRAINT "note_parts_note_id_part_pk" PRIMARY KEY("note_id","part")
);
--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "capture_state" text;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "capture_parts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "capture_touched_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "note_parts" ADD CONSTRAINT "note_parts_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;