// Writes a migration that deploys a database function from its source file:
//   npm run db:function -- src/flow/contacts/upsert-contact.sql contact_upsert_<what_changed>
// drizzle-kit makes an empty custom migration (journal and snapshot included) and the source's
// text fills it, so migrations stay generated and the function keeps one source of truth.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [source, name] = process.argv.slice(2);
if (!source?.endsWith('.sql') || !name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:function -- <source.sql> <migration_name in snake_case>');
  process.exit(1);
}
const sql = readFileSync(source, 'utf8');
const folder = 'migrations';
const before = new Set(readdirSync(folder));
execFileSync('npx', ['drizzle-kit', 'generate', '--custom', '--name', name], { stdio: 'inherit' });
const created = readdirSync(folder).filter((file) => file.endsWith('.sql') && !before.has(file));
if (created.length !== 1) {
  console.error(`expected one new migration in ${folder}/, found ${created.length}`);
  process.exit(1);
}
writeFileSync(path.join(folder, created[0]!), sql);
console.log(`${folder}/${created[0]} deploys ${source}`);
