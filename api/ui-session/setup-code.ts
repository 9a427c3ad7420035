/**
 * The one-time setup code of a fresh install: while no user exists, a process makes a code at
 * its start, writes it to `<data dir>/setup-code` (readable by its owner only) and prints it on
 * its console when that is a terminal, so whoever runs pier can create the first administrator
 * in the browser (/ui/setup) without a shell command. The code is never written to the log: the
 * log line names the file. It stops working once a user exists, and the file is removed then.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Orm } from '../../storage/db.js';
import { UserSchema } from '../../storage/entities/user.js';

/** Letters and digits that cannot be mistaken for one another when typed from a console. */
const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** 16 characters of 32: 80 bits, in four groups of four. */
function newCode(): string {
  const bytes = randomBytes(16);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]);
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join('')).join('-');
}

/** What a typed code is compared as: case and spacing do not matter. */
const normalized = (code: string) => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

export class SetupCode {
  #code: string | null;
  readonly file: string;

  private constructor(code: string, file: string) {
    this.#code = code;
    this.file = file;
  }

  /**
   * A new code when no user exists (written to the data directory, made if missing), else null.
   * A code that cannot be written is no reason not to start: the server then runs without one
   * (`pier users passwd` still makes the first administrator) and `unwritable` says why.
   */
  static async prepare(
    orm: Orm,
    dataDir: string,
    unwritable: (error: Error) => void = () => {},
  ): Promise<SetupCode | null> {
    if ((await orm.em.fork().count(UserSchema, {})) > 0) return null;
    const file = path.join(dataDir, 'setup-code');
    const code = newCode();
    try {
      await mkdir(dataDir, { recursive: true });
      await writeFile(file, `${code}\n`, { mode: 0o600 });
    } catch (error) {
      unwritable(error as Error);
      return null;
    }
    return new SetupCode(code, file);
  }

  /** The code, for the console banner; null once spent. */
  get value(): string | null {
    return this.#code;
  }

  /** Whether `candidate` is the code, compared in constant time. */
  matches(candidate: string): boolean {
    if (this.#code === null) return false;
    const a = Buffer.from(normalized(this.#code));
    const b = Buffer.from(normalized(candidate));
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** The first administrator exists: the code stops working and its file goes. */
  async spend(): Promise<void> {
    this.#code = null;
    await rm(this.file, { force: true });
  }
}
