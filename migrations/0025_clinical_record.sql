CREATE TABLE "note_amendments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"note_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"section_id" uuid NOT NULL,
	"label" text NOT NULL,
	"previous_content" text NOT NULL,
	"content" text NOT NULL,
	"reason" text NOT NULL,
	"signed_by_name" text NOT NULL,
	"signed_by_license" text NOT NULL,
	"key_id" uuid NOT NULL,
	"content_sha256" text NOT NULL,
	"previous_sha256" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "note_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "note_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"note_id" uuid NOT NULL,
	"event" text NOT NULL,
	"key_id" uuid,
	"key_name" text,
	"request_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "note_signatures" (
	"note_id" uuid PRIMARY KEY NOT NULL,
	"signed_by_name" text NOT NULL,
	"signed_by_license" text NOT NULL,
	"signed_at" timestamp with time zone NOT NULL,
	"key_id" uuid NOT NULL,
	"flags_acknowledged" boolean NOT NULL,
	"open_flags" integer NOT NULL,
	"content_sha256" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notes" ADD COLUMN "record_status" text DEFAULT 'draft' NOT NULL;--> statement-breakpoint
ALTER TABLE "note_amendments" ADD CONSTRAINT "note_amendments_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "note_amendments" ADD CONSTRAINT "note_amendments_section_id_note_sections_id_fk" FOREIGN KEY ("section_id") REFERENCES "public"."note_sections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "note_history" ADD CONSTRAINT "note_history_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "note_signatures" ADD CONSTRAINT "note_signatures_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "note_amendments_note_position_idx" ON "note_amendments" USING btree ("note_id","position");--> statement-breakpoint
CREATE INDEX "note_history_note_idx" ON "note_history" USING btree ("note_id","id");