ALTER TABLE "notes" ADD COLUMN "simulated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "external_id_rekeying" text DEFAULT 'replace' NOT NULL;--> statement-breakpoint
-- Notes the sandbox completed before the column existed: its made-up transcripts say so too.
UPDATE "notes" SET "simulated" = true,
  "review_flags" = '[{"section":null,"sentence":null,"reason":"simulated_transcript","token":null}]'::jsonb || "review_flags"
WHERE "transcript"->>'provider' = 'sandbox';
