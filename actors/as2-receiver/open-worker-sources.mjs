// The pool's task file when pier runs from its TypeScript sources (tests, benchmarks of the
// sources): a pool thread does not inherit tsx's loader, so it loads open-worker.ts through
// tsx. The compiled build (dist/) runs open-worker.js directly; tsx is not installed there.
import { tsImport } from 'tsx/esm/api';

const { default: open } = await tsImport('./open-worker.ts', import.meta.url);
export default open;
