CREATE TABLE "idempotency_keys" (
	"clinic_id" uuid NOT NULL,
	"key" text NOT NULL,
	"scope" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status_code" integer NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_clinic_id_scope_key_pk" PRIMARY KEY("clinic_id","scope","key")
);
--> statement-breakpoint
CREATE TABLE "note_sections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"note_id" uuid NOT NULL,
	"label" text NOT NULL,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"order" text NOT NULL,
	"position" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"gender" text DEFAULT 'unidentified' NOT NULL,
	"external_id" text,
	"metadata" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"audio_name" text,
	"audio_key" text NOT NULL,
	"audio_format" text NOT NULL,
	"audio_bytes" bigint NOT NULL,
	"audio_sha256" text NOT NULL,
	"audio_duration_seconds" real NOT NULL,
	"transcription_status" text DEFAULT 'pending' NOT NULL,
	"failure" jsonb,
	"transcript" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"processing_started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "note_sections" ADD CONSTRAINT "note_sections_note_id_notes_id_fk" FOREIGN KEY ("note_id") REFERENCES "public"."notes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notes" ADD CONSTRAINT "notes_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "note_sections_note_idx" ON "note_sections" USING btree ("note_id","position");--> statement-breakpoint
CREATE INDEX "notes_clinic_created_idx" ON "notes" USING btree ("clinic_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "notes_clinic_external_idx" ON "notes" USING btree ("clinic_id","external_id");--> statement-breakpoint
CREATE INDEX "notes_processing_idx" ON "notes" USING btree ("transcription_status","processing_started_at") WHERE transcription_status = 'processing';