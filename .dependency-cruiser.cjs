// The dependency rules of src/ (`npm run check:deps`, run by .ci/run; CONTRIBUTING.md, "Layers").
// TypeScript 7 has no JS compiler API yet, so dependency-cruiser parses the sources with swc, which
// sees `import type` too: a type is a dependency like any other, and a rule covers it.
//
// The floors, bottom up: platform/ (database, HTTP plumbing, jobs, metrics) → audio/ (formats,
// probing, splitting, joining, stitching) and language/ (pt-BR text: folding, tokens, numbers,
// sentences, headings, the note's sections) → models/ (the trained sectioner and its training) →
// providers/ (ports, their adapters, and adapters.ts, which chooses them) → the two API trees,
// notes/ and flow/, which never import each other and reach providers/ only through its ports →
// the composition roots (app.ts, main.ts, retention.ts, cli/). Inside each tree, features are
// ordered (FEATURE_FLOORS) and, inside a feature, routes → services → repos.
// The features of each API tree, bottom up, one floor per line: a feature imports only features on
// floors below its own (never one above it, nor a neighbour on its floor), so the tree's import
// graph has no arrow running back up. The tree's own files (callers.ts and the like) are below
// every feature; its module, API, CLI and retention files above them all. A new feature folder
// goes on a floor here: `test/platform/dependency-rules.test.ts` fails until it does.
const FEATURE_FLOORS = {
  notes: [
    ['auth', 'store'],
    ['history', 'keys', 'plan', 'reads', 'templates', 'vitals', 'webhooks'],
    ['clinics', 'export', 'follow-ups', 'plan-edit', 'processing', 'sections', 'settings'],
    ['record', 'upload'],
    ['live'],
    ['erasure', 'recording'],
    ['retry'],
  ],
  // The CRM tree: the HTTP helpers and the rows every feature checks or writes (the workspace, the
  // contact audit trail); what a workspace holds (its users, integration keys, contacts); what works
  // on those (logins, the CRM screens, the operator's workspace set-up); surveys, which move leads of
  // the CRM pipeline; and the ERP-facing API, which mounts the contact and survey routes.
  flow: [['http', 'workspaces', 'audit'], ['users', 'keys', 'contacts'], ['auth', 'crm', 'operator'], ['messages'], ['surveys'], ['external']],
};

/** One rule per feature: it may not import a feature on its floor or above. */
function featureFloorRules(tree, floors) {
  if (!floors) return [];
  return floors.flatMap((floor, level) =>
    floor.map((feature) => {
      const above = floors
        .slice(level)
        .flat()
        .filter((other) => other !== feature);
      return {
        name: `${tree}-feature-${feature}-imports-lower-floors-only`,
        severity: 'error',
        comment: `${tree}/${feature}/ is on floor ${level + 1} of ${tree}/ (.dependency-cruiser.cjs, FEATURE_FLOORS): it imports only features below it.`,
        from: { path: `^src/${tree}/${feature}/` },
        to: { path: `^src/${tree}/(${above.join('|')})/` },
      };
    }),
  );
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...featureFloorRules('notes', FEATURE_FLOORS.notes),
    ...featureFloorRules('flow', FEATURE_FLOORS.flow),
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Dependencies point one way: routes → services → repos → platform. A cycle means a layer reaches back up.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'platform-imports-nothing-above',
      severity: 'error',
      comment: 'platform/ is the floor: it may not know audio, language, models, providers, either API tree or the composition roots.',
      from: { path: '^src/platform/' },
      to: { path: '^src/(audio|language|models|providers|notes|flow|cli)/|^src/(app|main|retention)\\.ts$' },
    },
    {
      name: 'audio-imports-platform-only',
      severity: 'error',
      comment: 'audio/ (formats, probing, splitting, joining, stitching) knows bytes and time, nothing of text, providers or notes.',
      from: { path: '^src/audio/' },
      to: { path: '^src/(language|models|providers|notes|flow|cli)/|^src/(app|main|retention)\\.ts$' },
    },
    {
      name: 'language-imports-platform-only',
      severity: 'error',
      comment: 'language/ (pt-BR text helpers) is used by the model, the providers and the vitals; it imports none of them.',
      from: { path: '^src/language/' },
      to: { path: '^src/(audio|models|providers|notes|flow|cli)/|^src/(app|main|retention)\\.ts$' },
    },
    {
      name: 'models-import-language-and-platform-only',
      severity: 'error',
      comment: 'models/ (the trained sectioner and its training) is served by its adapter in providers/; it imports no adapter or tree.',
      from: { path: '^src/models/' },
      to: { path: '^src/(audio|providers|notes|flow|cli)/|^src/(app|main|retention)\\.ts$' },
    },
    {
      name: 'providers-import-lower-floors-only',
      severity: 'error',
      comment: 'A provider (speech-to-text, sectioner, drafter, storage, messaging) knows nothing of notes, contacts, routes or tables.',
      from: { path: '^src/providers/' },
      to: { path: '^src/(notes|flow|cli)/|^src/(app|main|retention)\\.ts$' },
    },
    {
      name: 'api-trees-use-providers-through-ports',
      severity: 'error',
      comment:
        'notes/ and flow/ see a provider only through its port (providers/<kind>/port.ts, and the ProviderError every port throws); providers/adapters.ts chooses the adapter for the composition root.',
      from: { path: '^src/(notes|flow)/' },
      to: { path: '^src/providers/', pathNot: '^src/providers/([^/]+/port|provider-error)\\.ts$' },
    },
    {
      name: 'api-trees-do-not-import-models',
      severity: 'error',
      comment: 'The trained sectioner reaches the trees through the sectioning port, never directly.',
      from: { path: '^src/(notes|flow)/' },
      to: { path: '^src/models/' },
    },
    {
      name: 'repos-import-no-service-or-route',
      severity: 'error',
      comment: 'Inside a feature, routes → services → repos: a repo (SQL) never calls up into a service, a job or a route.',
      from: { path: '\\.repo\\.ts$' },
      to: { path: '\\.(service|routes|job)\\.ts$' },
    },
    {
      name: 'services-import-no-route',
      severity: 'error',
      comment: 'Inside a feature, routes → services → repos: a service or a job never imports a route file.',
      from: { path: '\\.(service|job)\\.ts$' },
      to: { path: '\\.routes\\.ts$' },
    },
    {
      name: 'tree-base-files-import-no-feature',
      severity: 'error',
      comment:
        "A tree's own base files (who is calling, the request's caller, role checks) sit below every feature of the tree: they import none.",
      from: { path: '^src/(notes|flow)/(callers|request-context|access)\\.ts$' },
      to: { path: '^src/(notes|flow)/[^/]+/' },
    },
    {
      name: 'notes-does-not-import-flow',
      severity: 'error',
      comment: 'The two API trees share only the floors below them.',
      from: { path: '^src/notes/' },
      to: { path: '^src/flow/' },
    },
    {
      name: 'flow-does-not-import-notes',
      severity: 'error',
      comment: 'The two API trees share only the floors below them.',
      from: { path: '^src/flow/' },
      to: { path: '^src/notes/' },
    },
    {
      name: 'api-trees-do-not-import-composition-roots',
      severity: 'error',
      comment: 'app.ts, main.ts, retention.ts and cli/ assemble the trees; nothing below imports them.',
      from: { path: '^src/(notes|flow|providers|models|language|audio|platform)/' },
      to: { path: '^src/cli/|^src/(app|main|retention)\\.ts$' },
    },
    {
      name: 'notes-store-imports-no-feature',
      severity: 'error',
      comment: 'notes/store/ is used by every feature of the Notes tree; it imports none of them (only notes/callers.ts).',
      from: { path: '^src/notes/store/' },
      to: { path: '^src/notes/', pathNot: '^src/notes/(store/|callers\\.ts$)' },
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
