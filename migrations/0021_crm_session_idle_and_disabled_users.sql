ALTER TABLE "crm_sessions" ADD COLUMN "last_seen_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "crm_users" ADD COLUMN "disabled_at" timestamp with time zone;