// Plain JavaScript on purpose: the launchers import this before any TypeScript, because a Node.js
// older than 24 cannot load a .ts file at all (ERR_UNKNOWN_FILE_EXTENSION) and would die without a hint.

export const REQUIRED_NODE_MAJOR = 24;

/** Exits 1 with one line on stderr when this Node.js is older than vetflow needs (package.json "engines"). */
export function requireSupportedNode() {
  const found = process.versions.node;
  if (Number(found.split('.')[0]) >= REQUIRED_NODE_MAJOR) return;
  process.stderr.write(`vetflow needs Node.js ≥ ${REQUIRED_NODE_MAJOR} (found ${found})\n`);
  process.exit(1);
}
