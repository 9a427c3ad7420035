/**
 * A file source's acceptances (file-poller, sftp-poller): the core's answer, with the database
 * being away told apart from a refusal of the file itself. Only the former fails every file
 * alike, so it ends the look and is told once per outage, and its end once. Its message's stages
 * are then kept until the database can say whether the acceptance committed (uncertain-stages.ts).
 */
import type { SourceCore } from './acceptance-port.js';
import { isDatabaseAway } from '../../flow/actor-commands.js';
import { tellDatabase } from './database-outage.js';
import type { UncertainStages } from './uncertain-stages.js';

/** Acceptance failed because the database is away: no file is to blame. */
export class AcceptFailed extends Error {}

export class FileAcceptance {
  #failing = false;

  constructor(
    private readonly core: SourceCore,
    private readonly uncertain: UncertainStages,
  ) {}

  /**
   * The acceptance of `message`, whose stages are stored under its id. When the database fails
   * it, those stages are kept (the statement may have committed) and AcceptFailed is thrown: the
   * caller must not remove them. A duplicate's stages are its own only when the earlier message
   * is another one (`removable`): an acceptance that committed with its answer lost and was then
   * tried again answers "duplicate" with this very message.
   */
  async accept(message: Parameters<SourceCore['accept']>[0]) {
    let answer;
    try {
      answer = await this.core.accept(message);
    } catch (error) {
      if (!isDatabaseAway(error)) throw error;
      this.uncertain.keep(message.id);
      throw new AcceptFailed(error instanceof Error ? error.message : String(error));
    }
    if (this.#failing) tellDatabase(this.core, true, 'taking files');
    this.#failing = false;
    void this.uncertain.settle();
    return { ...answer, removable: answer.duplicate && answer.message_id !== message.id };
  }

  /** Whether `error` was the database being away (told once per outage): the look stops then. */
  failed(error: unknown): boolean {
    if (!(error instanceof AcceptFailed)) return false;
    if (!this.#failing) tellDatabase(this.core, false, 'taking files', error.message);
    this.#failing = true;
    return true;
  }
}
