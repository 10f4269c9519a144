CREATE TABLE "contact_change_floors" (
	"workspace_id" uuid PRIMARY KEY NOT NULL,
	"position" bigint NOT NULL,
	"change_id" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contact_changes" ADD COLUMN "change" text;--> statement-breakpoint
-- What each version already in the feed was: a contact's first version is its creation.
UPDATE "contact_changes" c SET "change" = v.change FROM (
  SELECT id, CASE
    WHEN row_number() OVER (PARTITION BY contact_id ORDER BY position, id) = 1 THEN 'created'
    WHEN deleted THEN 'deleted'
    WHEN 'deleted' = ANY (changed_fields) THEN 'restored'
    ELSE 'updated' END AS change
  FROM "contact_changes") v
  WHERE v.id = c.id;--> statement-breakpoint
ALTER TABLE "contact_changes" ALTER COLUMN "change" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "crm_users" ADD COLUMN "expires_at" timestamp with time zone;