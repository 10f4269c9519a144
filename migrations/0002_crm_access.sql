CREATE TABLE "auth_blocks" (
	"ip" text PRIMARY KEY NOT NULL,
	"blocked_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auth_failures" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"ip" text NOT NULL,
	"failed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"scopes" text[] NOT NULL,
	"created_by_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "crm_api_keys_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "crm_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "crm_sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "crm_users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" uuid NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"billing_status" text DEFAULT 'active' NOT NULL,
	"contact_sync_policy" text DEFAULT 'flow' NOT NULL,
	"survey_enabled" boolean DEFAULT false NOT NULL,
	"survey_stage_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "crm_api_keys" ADD CONSTRAINT "crm_api_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_api_keys" ADD CONSTRAINT "crm_api_keys_created_by_user_id_crm_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."crm_users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_sessions" ADD CONSTRAINT "crm_sessions_user_id_crm_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."crm_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_users" ADD CONSTRAINT "crm_users_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auth_failures_ip_failed_at_idx" ON "auth_failures" USING btree ("ip","failed_at");--> statement-breakpoint
CREATE INDEX "auth_failures_failed_at_idx" ON "auth_failures" USING btree ("failed_at");--> statement-breakpoint
CREATE INDEX "crm_api_keys_workspace_idx" ON "crm_api_keys" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "crm_sessions_user_idx" ON "crm_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "crm_sessions_expires_idx" ON "crm_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "crm_users_email_key" ON "crm_users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "crm_users_workspace_idx" ON "crm_users" USING btree ("workspace_id");