/**
 * Named sets of test files, for `node --import tsx test/run.ts --set NAME`: each entry a test file
 * or a folder (its *.test.ts files, recursively), relative to the repository. The one place to add a
 * file or folder to a set.
 */
export const testSets = {
  /**
   * What .ci/run runs a second time on the oldest Node pier supports (20, which these machines
   * ship), after the whole suite on Node 24 LTS (the release's runtime): the release as an operator
   * installs it, the cryptography where Node 20's OpenSSL 3.0 differs from Node 24's (pki/, the AS2
   * actor's packing and unpacking), the AS2 exchange with openssl and the suite's own peers, and a
   * crash in the message flow.
   */
  'node-20': [
    'test/release.test.ts',
    'pki',
    'actors/as2',
    'test/as2/vectors.test.ts',
    'test/as2/refusals.test.ts',
    'test/as2/mdn.test.ts',
    'test/as2/damage.test.ts',
    'test/as2/loopback.test.ts',
    'test/as2/openssl-interop.test.ts',
    'test/as2/openssl-to-receiver.test.ts',
    'test/as2/openssl-mdn-to-sender.test.ts',
    'test/as2/actors-loopback.test.ts',
    'test/flow/crash-mid-delivery.test.ts',
  ],
  /** Real containers: pier's image, its compose file, its Kubernetes manifest (npm run test:container). */
  container: ['test/container'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Files that need a newer Node than the oldest pier runs on, with the oldest [major, minor] they run
 * on: the runner leaves them out, saying so, on an older Node (the whole suite on Node 24 runs them).
 */
export const needsNode: Readonly<Record<string, readonly [number, number]>> = {
  // Two processes on one port: net.Server's reusePort came in Node 22.12.
  'test/cluster/receiver-shared-port.test.ts': [22, 12],
  // What a module loads is seen through module.registerHooks, which came in Node 22.15.
  'test/architecture/actor-thread-modules.test.ts': [22, 15],
};

export type TestSetName = keyof typeof testSets;

/** Sets the whole suite (`npm test`) leaves out: they need tools of their own and run by their own command. */
export const runApart: readonly TestSetName[] = ['container'];

export function isTestSet(name: string): name is TestSetName {
  return Object.hasOwn(testSets, name);
}
