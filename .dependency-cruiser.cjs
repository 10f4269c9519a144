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
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
