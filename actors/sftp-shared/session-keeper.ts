/**
 * One SFTP session an instance keeps open and shares between its transfers (SFTP multiplexes
 * requests on one connection), opened when first needed and again after it broke. A failed
 * opening is not cached: the next transfer tries afresh. A changed host key is told to
 * `onHostKeyChanged` each time it refuses a connection, so the core can raise its alert.
 */
import { openSession, SftpConnectError, type SftpSession } from './connect.js';
import type { SftpEndpoint, SftpSecrets } from './fields.js';
import { Remote } from './remote.js';

export class SessionKeeper {
  #session: Promise<SftpSession> | undefined;

  constructor(
    private readonly endpoint: SftpEndpoint,
    private readonly secrets: SftpSecrets,
    private readonly onHostKeyChanged: (error: SftpConnectError) => void,
  ) {}

  async remote(): Promise<Remote> {
    const current = this.#session;
    if (current) {
      const session = await current.catch(() => undefined);
      if (session?.open) return new Remote(session.sftp, this.endpoint.timeout_seconds * 1000);
      if (this.#session === current) this.#session = undefined;
    }
    this.#session ??= openSession(this.endpoint, this.secrets).catch((error: unknown) => {
      this.#session = undefined;
      if (error instanceof SftpConnectError && error.hostKeyChanged) this.onHostKeyChanged(error);
      throw error;
    });
    const session = await this.#session;
    return new Remote(session.sftp, this.endpoint.timeout_seconds * 1000);
  }

  /** Drops the session after a failure that may have broken it; the next transfer opens a new one. */
  discard(): void {
    const current = this.#session;
    this.#session = undefined;
    void current?.then((s) => s.close()).catch(() => {});
  }

  close(): void {
    this.discard();
  }
}
