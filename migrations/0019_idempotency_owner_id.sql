-- The column holds a Notes clinic id or a CRM workspace id: named for what it holds.
ALTER TABLE "idempotency_keys" RENAME COLUMN "clinic_id" TO "owner_id";--> statement-breakpoint
ALTER TABLE "idempotency_keys" RENAME CONSTRAINT "idempotency_keys_clinic_id_scope_key_pk" TO "idempotency_keys_owner_id_scope_key_pk";
