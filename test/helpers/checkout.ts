/** Where the checkout is, for a test that runs a tool on the checkout itself (npm pack, say). */
import { realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * The checkout's root, also when the test runs from the tree test/run.ts compiles it into
 * (test/build-tree.ts), whose README.md is a link to the checkout's.
 */
export const checkoutRoot = path.dirname(realpathSync(path.resolve(import.meta.dirname, '../../README.md')));
