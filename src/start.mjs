// `npm start` and the container run this: the Node.js version is checked before any TypeScript is
// loaded (src/node-version.mjs), then the server starts (src/main.ts).
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode();
await import('./main.ts');
