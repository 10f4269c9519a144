import { sql, eq, and } from 'drizzle-orm';
import { openPostgres } from '../src/platform/db/client.ts';
import { contacts, contactExternalApiAuditLogs as audit, workspaces } from '../src/platform/db/schema/index.ts';
import { randomUUID } from 'node:crypto';
const d = openPostgres('postgres://postgres@127.0.0.1:5432/postgres', 2);
const db = d.db;
const [w] = await db.insert(workspaces).values({ name: 'cte test' } as any).returning();
const id = randomUUID();
const c = db.$with('c').as(db.insert(contacts).values({ id, workspaceId: w!.id, name: 'A', phone: '+5511999990000' }).returning());
const a = db.$with('a', { id: sql<string>`id` }).as(sql`insert into ${audit} (workspace_id, contact_id, api_key_prefix, action, changes, warnings, request_id, ip)
  select ${w!.id}::uuid, c.id, ${'crm_live_xx'}, ${'created'}, ${JSON.stringify({ name: { before: null, after: 'A' } })}::jsonb, array(select jsonb_array_elements_text(${JSON.stringify(['w1'])}::jsonb)), ${'req-1'}, ${null} from c returning id`);
const q = db.with(c, a).select().from(c);
console.log(q.toSQL().sql);
const rows = await q;
console.log(rows);
const [row] = rows;
const ver = await db.select({ v: sql<string>`xmin::text` }).from(contacts).where(eq(contacts.id, id));
console.log(ver);
const c2 = db.$with('c').as(db.update(contacts).set({ name: 'B', updatedAt: sql`now()` }).where(and(eq(contacts.id, id), sql`${contacts}.xmin = ${ver[0]!.v}::xid`)).returning());
const a2 = db.$with('a', { id: sql<string>`id` }).as(sql`insert into ${audit} (workspace_id, contact_id, api_key_prefix, action, changes, warnings, request_id, ip)
  select ${w!.id}::uuid, c.id, ${'crm_live_xx'}, ${'updated'}, ${'{}'}::jsonb, array(select jsonb_array_elements_text(${'[]'}::jsonb)), ${'req-2'}, ${null} from c returning id`);
console.log(await db.with(c2, a2).select().from(c2));
console.log('again (stale version):', await db.with(c2, a2).select().from(c2));
console.log(await db.select().from(audit).where(eq(audit.contactId, id)));
await db.delete(workspaces).where(eq(workspaces.id, w!.id));
await d.close();
