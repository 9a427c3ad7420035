/**
 * A fixture module beside a test file, as that file runs: the `.ts` source under tsx, the compiled
 * `.js` in the suite. A `.ts` fixture in the compiled suite is loaded through tsx in its worker
 * thread: seconds per start on a busy machine, where the supervisor's tests time starts.
 */
export function fixtureModule(testUrl: string, relative: string): URL {
  return new URL(`${relative}${testUrl.endsWith('.ts') ? '.ts' : '.js'}`, testUrl);
}
