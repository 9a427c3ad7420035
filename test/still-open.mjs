// Loaded into every test file's process by test/runner.ts (`--import`): told SIGUSR2, which the
// runner sends to a file whose tests have ended but which has not exited, it writes one TAP comment
// line naming what still keeps the process alive (timers, sockets with their ports, servers, child
// processes, threads), so the failure says which handle leaked instead of only that one did.
// A signal listener holds no reference of its own: the process still exits when its work is done.

/** One handle, said with what tells it apart (a socket's ports say which server it belongs to). */
function described(handle) {
  const kind = handle?.constructor?.name ?? typeof handle;
  try {
    if (kind === 'Socket' && handle.remotePort !== undefined)
      return `socket ${handle.localPort}->${handle.remoteAddress}:${handle.remotePort}`;
    if (kind === 'Server' && typeof handle.address === 'function') {
      const address = handle.address();
      return `server ${typeof address === 'string' ? address : `port ${address?.port}`}`;
    }
    if (kind === 'ChildProcess') return `child ${handle.pid} ${handle.spawnfile}`;
  } catch {
    // a handle half closed says only its kind
  }
  return kind;
}

process.on('SIGUSR2', () => {
  const counts = new Map();
  for (const resource of process.getActiveResourcesInfo())
    counts.set(resource, (counts.get(resource) ?? 0) + 1);
  const resources = [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(', ');
  // Undocumented, but the only way to see a socket's ports from inside; absent, the counts remain.
  const handles = (process._getActiveHandles?.() ?? []).map(described).join(', ');
  process.stdout.write(`# still open: ${resources || 'nothing'}${handles ? ` (${handles})` : ''}\n`);
});
