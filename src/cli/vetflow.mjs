#!/usr/bin/env node
// The operator CLI's entry (`npm run cli`, `npm run migrate`, the `vetflow` bin): the Node.js
// version is checked before any TypeScript is loaded (src/node-version.mjs), then src/cli/main.ts runs.
import { requireSupportedNode } from '../node-version.mjs';

requireSupportedNode();
await import('./main.ts');
