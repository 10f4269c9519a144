import { registerHooks } from 'node:module';

// Preloaded with `node --import` (NODE_OPTIONS) by tests that check what a process loads: every
// module resolved (ESM imports and require alike) whose URL contains one of the watched strings is
// counted, and the count printed to stderr on exit as `WATCHED_MODULES <n>`.

const watched = ['@opentelemetry/'];
const loaded = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    if (watched.some((part) => resolved.url.includes(part))) loaded.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => process.stderr.write(`WATCHED_MODULES ${loaded.size}\n${process.env.WATCH_LIST ? [...loaded].join('\n') : ''}\n`));
