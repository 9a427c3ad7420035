// Covers exactly-once of a file poller feeding a file writer under kill -9, twice: 40 files written into the poller's directory while pier runs (before the first kill, while it is down, after the restart), the process killed with SIGKILL twice mid-run and started again each time; every file becomes one message, delivered once with its bytes, none left in the directory, none in processed without its message. (The same run with an sftp-sender is test/sftp/sftp-kill9-file-poller.test.ts.)
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { tempDir } from '../helpers/flow.js';
import { pollerKill9 } from '../helpers/poller-kill9.js';

t.test('file poller to file writer, killed twice: every file delivered once, none lost', async (t) => {
  const out = await tempDir(t, 'pier-poller-kill9-out-');
  await pollerKill9(t, 'file-writer', {
    type: 'file-writer',
    settings: { directory: out, path_pattern: '{filename}', retry_interval: 1 },
    async delivered() {
      const found = new Map<string, Buffer>();
      // The writer's own hidden temporaries (docs/decisions/file-writer-temporaries.md) are not
      // deliveries: a kill leaves them for the writer's sweep.
      for (const e of await readdir(out, { withFileTypes: true, recursive: true })) {
        const name = path.relative(out, path.join(e.parentPath, e.name));
        if (e.isDirectory() || name.startsWith('.pier-tmp/')) continue;
        found.set(name, await readFile(path.join(out, name)));
      }
      return found;
    },
  });
});
