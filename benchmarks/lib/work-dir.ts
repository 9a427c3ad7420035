/**
 * A benchmark's working directory (the files it delivers), removed only once its inodes can no
 * longer slow a later run. On ext4 without a journal (these machines' root file system), the
 * inode allocator passes over inodes freed in the last minutes (`recently_deleted`, up to 6 min
 * while their inode table block is dirty) and reads the inode table for each; a run started
 * right after another had removed its thousands of files paid up to four times the CPU per
 * delivered file (README.md, as2-receive, sixth session). So a finished run's directory is only
 * renamed aside, and each run removes those set aside more than 10 minutes before.
 */
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const setAside = path.join(os.tmpdir(), 'pier-bench-finished');
const removableAfterMs = 10 * 60 * 1000;

export interface WorkDir {
  path: string;
  /** Sets the directory aside, for a run at least 10 minutes later to remove. */
  finish(): void;
}

export function benchWorkDir(prefix: string): WorkDir {
  removeOldRuns();
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    path: dir,
    finish() {
      mkdirSync(setAside, { recursive: true });
      const aside = path.join(setAside, path.basename(dir));
      renameSync(dir, aside);
      // Its modification time says when it was set aside.
      const now = new Date();
      utimesSync(aside, now, now);
    },
  };
}

function removeOldRuns(): void {
  let names: string[];
  try {
    names = readdirSync(setAside);
  } catch {
    return; // nothing set aside yet
  }
  for (const name of names) {
    const dir = path.join(setAside, name);
    // Gone meanwhile: another run removed it.
    const setAsideAt = statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
    if (Date.now() - setAsideAt > removableAfterMs) rmSync(dir, { recursive: true, force: true });
  }
}
