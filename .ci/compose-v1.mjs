// Writes the copy of the compose files that Compose v1 (Debian's docker-compose 1.29) reads, for the
// compose stage (config checks) and the compose-up stage (the stack, for real).
// usage: node .ci/compose-v1.mjs DIR   (from the repository's root)
//
// - Compose v1 predates the optional env_file syntax (`path:` + `required: false`): the copy has the
//   plain form, with an empty .env beside it.
// - `build: .` becomes this checkout, built on the host network: on CI machines the npm registry is
//   reached only from there (the docker stage builds with `--network host` too).
// Each rewrite fails loudly when docker-compose.yml no longer has what it replaces.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node .ci/compose-v1.mjs DIR');
const root = process.cwd();

let copy = readFileSync('docker-compose.yml', 'utf8');
const rewrite = (from, to, what) => {
  const next = copy.replace(from, to);
  if (next === copy) {
    console.error(`docker-compose.yml: ${what} not found`);
    process.exit(1);
  }
  copy = next;
};
rewrite(/env_file:\n\s+- path: \.env\n\s+required: false\n/, 'env_file: .env\n', 'the optional env_file block');
rewrite(/\n {4}build: \.\n/, `\n    build:\n      context: ${JSON.stringify(root)}\n      network: host\n`, "the app's `build: .`");

writeFileSync(path.join(dir, 'docker-compose.yml'), copy);
writeFileSync(path.join(dir, '.env'), '');
cpSync('docker-compose.whisper.yml', path.join(dir, 'docker-compose.whisper.yml'));
cpSync('ops', path.join(dir, 'ops'), { recursive: true });
