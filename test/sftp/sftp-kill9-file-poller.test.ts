// Covers exactly-once of a file poller feeding an sftp-sender under kill -9, twice, against a real sshd: 40 files written into the poller's directory while pier runs (before the first kill, while it is down, after the restart), the process killed with SIGKILL twice mid-run and started again each time; every file lands once on the server under its final name with its bytes, one message per file, no temporary left, none left in the directory, none in processed without its message. (The same run with a file writer is test/flow/file-poller-kill9.test.ts.)
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { pollerKill9 } from '../helpers/poller-kill9.js';
import { sftpLogin, startSshd } from '../helpers/sshd.js';

const sshd = await startSshd(t);

t.test('file poller to sftp-sender, killed twice: every file lands once, none lost', async (t) => {
  const outbox = await sshd.directory('poller-kill9-outbox');
  await pollerKill9(t, 'sftp', {
    type: 'sftp-sender',
    settings: {
      ...sftpLogin(sshd),
      remote_directory: outbox,
      path_pattern: '{filename}',
      retry_interval: 1,
    },
    async delivered() {
      const found = new Map<string, Buffer>();
      for (const name of await readdir(outbox)) found.set(name, await readFile(path.join(outbox, name)));
      return found;
    },
  });
});
