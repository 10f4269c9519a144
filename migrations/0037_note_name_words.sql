CREATE TABLE "note_name_dictionary" (
	"clinic_id" uuid NOT NULL,
	"word" text NOT NULL,
	CONSTRAINT "note_name_dictionary_clinic_id_word_pk" PRIMARY KEY("clinic_id","word")
);
--> statement-breakpoint
CREATE TABLE "note_name_words" (
	"clinic_id" uuid NOT NULL,
	"word" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"note_id" uuid NOT NULL,
	"name_folded" text NOT NULL,
	"transcription_status" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "note_name_dictionary" ADD CONSTRAINT "note_name_dictionary_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "note_name_dictionary_word_trgm_idx" ON "note_name_dictionary" USING gin (word gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "note_name_words_walk_idx" ON "note_name_words" USING btree ("clinic_id","word","created_at","note_id","name_folded","transcription_status");