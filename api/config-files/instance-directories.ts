/**
 * The local directories of a file's instances, made on apply as the set-up wizard makes them:
 * a file poller's watched and processed directories and a file writer's directory. Made after
 * the commit and before the instances start, so a promoted poller does not fail on a missing
 * directory (the actors themselves never make the directory they watch: a missing mount must
 * not be replaced by an empty local folder; docs/decisions/apply-makes-the-directories-of-the-instances-it-names.md).
 */
import { mkdir, stat } from 'node:fs/promises';
import type { ConfigFile } from '../schemas/config-file.js';

/** Settings that name a local directory, by plugin type. */
const directoryFields: Readonly<Record<string, readonly string[]>> = {
  'file-poller': ['base_directory', 'processed_directory'],
  'file-writer': ['directory'],
};

export interface DirectoryOutcome {
  instance: string;
  field: string;
  path: string;
  /** made: created now; present: there already; failed: could not be made (`error` says why). */
  outcome: 'made' | 'present' | 'failed';
  error?: string;
}

async function isDirectory(path: string): Promise<boolean | undefined> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function reasonOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'permission denied';
  if (e.code === 'ENOTDIR' || e.code === 'EEXIST') return 'a file of that name is in the way';
  return e.code ?? e.message;
}

async function ensure(instance: string, field: string, path: string): Promise<DirectoryOutcome> {
  const where = { instance, field, path };
  try {
    const there = await isDirectory(path);
    if (there === true) return { ...where, outcome: 'present' };
    if (there === false) return { ...where, outcome: 'failed', error: 'a file of that name is in the way' };
    await mkdir(path, { recursive: true, mode: 0o750 });
    return { ...where, outcome: 'made' };
  } catch (error) {
    return { ...where, outcome: 'failed', error: reasonOf(error) };
  }
}

/** Each instance's directories, made when missing; what was found or done for each. */
export async function makeInstanceDirectories(file: ConfigFile): Promise<DirectoryOutcome[]> {
  const out: DirectoryOutcome[] = [];
  for (const instance of file.instances) {
    for (const field of directoryFields[instance.type] ?? []) {
      const value = instance.settings[field];
      if (typeof value === 'string' && value.startsWith('/'))
        out.push(await ensure(instance.name, field, value));
    }
  }
  return out;
}
