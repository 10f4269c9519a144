// Import-cycle check for src/ (`npm run check:cycles`, run by .ci/run). TypeScript 7 has no JS
// compiler API yet, so dependency-cruiser parses the sources with swc, which sees `import type`
// too: a cycle through types only is still a layer reaching back up.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Dependencies point one way: routes → services → repos → platform. A cycle means a layer reaches back up.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'drizzle-through-one-entry',
      severity: 'error',
      comment:
        'drizzle-orm (and the PGlite its embedded driver instantiates) load through src/platform/db/drizzle.ts only: its CommonJS build, one copy (an ESM import of drizzle costs ~200 MB of RSS on Node 24; docs/benchmarks.md).',
      from: { path: '^src/', pathNot: '^src/platform/db/drizzle\\.ts$' },
      to: { path: '^node_modules/(drizzle-orm|@electric-sql/pglite)/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
