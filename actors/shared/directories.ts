/**
 * Directories an actor has made, remembered, so a busy writer does not ask the file system
 * to make the same directory for every file. A directory removed behind its back is made
 * again on the next failure.
 */
import { makeDirectory } from './make-directory.js';

export class Directories {
  readonly #made = new Set<string>();

  async ensure(dir: string): Promise<void> {
    if (this.#made.has(dir)) return;
    await makeDirectory(dir);
    if (this.#made.size > 10_000) this.#made.clear();
    this.#made.add(dir);
  }

  /** Runs `work` in `dir`; when it fails because the directory is gone, makes it and tries once more. */
  async within<T>(dir: string, work: () => Promise<T>): Promise<T> {
    await this.ensure(dir);
    try {
      return await work();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.#made.delete(dir);
      await this.ensure(dir);
      return work();
    }
  }
}
