CREATE TABLE "note_search_documents" (
	"note_id" uuid PRIMARY KEY NOT NULL,
	"clinic_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"document" "tsvector" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "note_search_documents" ADD CONSTRAINT "note_search_documents_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "note_search_documents_document_idx" ON "note_search_documents" USING gin ("document");--> statement-breakpoint
CREATE INDEX "note_search_documents_clinic_created_idx" ON "note_search_documents" USING btree ("clinic_id","created_at" DESC NULLS LAST,"note_id" DESC NULLS LAST);