CREATE TABLE "note_transcript_chunks" (
	"note_id" uuid NOT NULL,
	"chunk_index" integer NOT NULL,
	"start_seconds" double precision NOT NULL,
	"end_seconds" double precision NOT NULL,
	"transcript" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "note_transcript_chunks_note_id_chunk_index_pk" PRIMARY KEY("note_id","chunk_index")
);
--> statement-breakpoint
ALTER TABLE "note_transcript_chunks" ADD CONSTRAINT "note_transcript_chunks_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;