ALTER TABLE "note_erasures" ADD COLUMN "external_id_hmac" text;--> statement-breakpoint
CREATE INDEX "note_erasures_clinic_hmac_idx" ON "note_erasures" USING btree ("clinic_id","external_id_hmac");