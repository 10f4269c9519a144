CREATE TABLE "note_section_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"section_id" uuid NOT NULL,
	"note_id" uuid NOT NULL,
	"title" text NOT NULL,
	"label" text NOT NULL,
	"content" text NOT NULL,
	"order" text NOT NULL,
	"version_updated_at" timestamp with time zone NOT NULL,
	"replaced_by_key_id" uuid,
	"replaced_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "note_section_versions" ADD CONSTRAINT "note_section_versions_section_id_note_sections_id_fk" FOREIGN KEY ("section_id") REFERENCES "public"."note_sections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "note_section_versions_section_idx" ON "note_section_versions" USING btree ("section_id","replaced_at");