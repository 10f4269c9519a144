CREATE TABLE "clinics" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"quota_minutes" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notes_api_key_usage" (
	"key_id" uuid NOT NULL,
	"day" date NOT NULL,
	"endpoint" text NOT NULL,
	"status_class" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "notes_api_key_usage_key_id_day_endpoint_status_class_pk" PRIMARY KEY("key_id","day","endpoint","status_class")
);
--> statement-breakpoint
CREATE TABLE "notes_api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"permissions" text[] NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"created_by_key_id" uuid,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notes_api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_limit_counters_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
ALTER TABLE "notes_api_key_usage" ADD CONSTRAINT "notes_api_key_usage_key_id_notes_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."notes_api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notes_api_keys" ADD CONSTRAINT "notes_api_keys_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notes_api_keys_clinic_idx" ON "notes_api_keys" USING btree ("clinic_id","created_at");