/**
 * A file source's acceptances (file-poller, sftp-poller): the core's answer, with the database
 * being away told apart from a refusal of the file itself. Only the former fails every file
 * alike, so it ends the look and is told once per outage, and its end once.
 */
import type { CoreClient } from '../../protocol/worker-host/host.js';
import { isDatabaseAway } from '../../flow/actor-commands.js';
import { tellDatabase } from './database-outage.js';

/** Acceptance failed because the database is away: no file is to blame. */
export class AcceptFailed extends Error {}

export class FileAcceptance {
  #failing = false;

  constructor(private readonly core: CoreClient) {}

  async accept(message: Parameters<CoreClient['accept']>[0]) {
    let answer;
    try {
      answer = await this.core.accept(message);
    } catch (error) {
      throw isDatabaseAway(error)
        ? new AcceptFailed(error instanceof Error ? error.message : String(error))
        : error;
    }
    if (this.#failing) tellDatabase(this.core, true, 'taking files');
    this.#failing = false;
    return answer;
  }

  /** Whether `error` was the database being away (told once per outage): the look stops then. */
  failed(error: unknown): boolean {
    if (!(error instanceof AcceptFailed)) return false;
    if (!this.#failing) tellDatabase(this.core, false, 'taking files', error.message);
    this.#failing = true;
    return true;
  }
}
