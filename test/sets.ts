/**
 * Named sets of test files, for `node --import tsx test/run.ts --set NAME`: each entry a test file
 * or a folder (its *.test.ts files, recursively), relative to the repository. The one place to add a
 * file or folder to a set.
 */
export const testSets = {
  /**
   * What .ci/run runs a second time on Node 24 (the release's runtime, from scripts/runtimes/node-24.ts)
   * after the whole suite on the machine's Node: the release as an operator installs it, the AS2
   * exchange, the message flow and the web UI.
   */
  'node-24': [
    'test/release.test.ts',
    'test/as2',
    'test/flow',
    'test/ui',
    'test/cluster/receiver-shared-port.test.ts',
  ],
  /** Real containers: pier's image, its compose file, its Kubernetes manifest (npm run test:container). */
  container: ['test/container'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Files that need a newer Node than the oldest pier runs on, with the oldest [major, minor] they run
 * on: the runner leaves them out, saying so, on an older Node. Each is in the node-24 set too.
 */
export const needsNode: Readonly<Record<string, readonly [number, number]>> = {
  // Two processes on one port: net.Server's reusePort came in Node 22.12.
  'test/cluster/receiver-shared-port.test.ts': [22, 12],
};

export type TestSetName = keyof typeof testSets;

/** Sets the whole suite (`npm test`) leaves out: they need tools of their own and run by their own command. */
export const runApart: readonly TestSetName[] = ['container'];

export function isTestSet(name: string): name is TestSetName {
  return Object.hasOwn(testSets, name);
}
