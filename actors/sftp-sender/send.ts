/**
 * Delivering one payload as a file on the partner's SFTP server: written under a hidden
 * temporary name beside its final one (`.pier-<delivery>.part`, which pollers skip), its size
 * checked, then renamed. OpenSSH's rename never replaces a file, so a file under the final name
 * is always whole: a dropped connection or a full disk fails the attempt with the temporary file
 * left or removed, never with a half file under the final name. The same content already there
 * counts as delivered (a delivery repeated after a crash between rename and record); other
 * content is refused, or written under a name of its own when `if_exists` is rename.
 */
import path from 'node:path';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import { Readable } from 'node:stream';
import { openKept } from '../../storage/payloads/inline.js';
import { asJson, formattedName, NotTranslatable } from '../shared/delivery-format.js';
import { PayloadMissing, type PayloadStore } from '../../storage/payloads/store.js';
import { fillPattern } from '../shared/path-pattern.js';
import { SftpConnectError } from '../sftp-shared/connect.js';
import { RemoteError, sftpStatus, type Remote } from '../sftp-shared/remote.js';
import type { SessionKeeper } from '../sftp-shared/session-keeper.js';
import type { SftpSenderSettings } from './config.js';
import { remoteDigest, upload, type Uploaded } from '../sftp-shared/upload.js';

/** `invoice.xml` → `invoice.1a2b3c4d.xml`: a name of its own for a message's file. */
function renamed(file: string, messageId: string): string {
  const ext = path.posix.extname(file);
  return `${file.slice(0, file.length - ext.length)}.${messageId.slice(0, 8)}${ext}`;
}

/** The temporary name of a delivery's file: hidden, and named so every poller skips it. */
export function temporaryName(final: string, deliveryId: number): string {
  return path.posix.join(path.posix.dirname(final), `.pier-${deliveryId}.part`);
}

export class SftpSender {
  constructor(
    private readonly settings: SftpSenderSettings,
    private readonly store: PayloadStore,
    private readonly sessions: SessionKeeper,
  ) {}

  async deliver(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const m = delivery.message;
    const relative = fillPattern(this.settings.path_pattern, {
      from: m.from,
      to: m.to,
      filename: formattedName(m.file_name, this.settings.format),
      id: m.id,
    });
    const final = path.posix.join(this.settings.remote_directory, relative);
    const temp = temporaryName(final, delivery.delivery_id);
    let remote: Remote | undefined;
    try {
      remote = await this.sessions.remote();
      await remote.makeDirectory(path.posix.dirname(final));
      let source;
      try {
        const open = () =>
          openKept(this.store, { messageId: m.id, stage: delivery.payload.stage }, delivery.payload.content);
        source = this.settings.format === 'json' ? Readable.from(await asJson(open)) : await open();
      } catch (error) {
        if (error instanceof PayloadMissing || error instanceof NotTranslatable)
          return { ok: false, retryable: false, error: error.message };
        throw error;
      }
      const uploaded = await upload(remote, source, temp);
      return await this.#place(remote, uploaded, temp, final, relative, m.id);
    } catch (error) {
      if (remote) await remote.unlinkIfAny(temp).catch(() => {});
      return { ok: false, retryable: true, error: this.#failure(error) };
    }
  }

  /** The written temporary file under its final name, or the reason it cannot have it. */
  async #place(
    remote: Remote,
    uploaded: Uploaded,
    temp: string,
    final: string,
    relative: string,
    messageId: string,
  ): Promise<DeliveryOutcome> {
    const under = (file: string) => path.posix.relative(this.settings.remote_directory, file);
    for (const candidate of [final, renamed(final, messageId)]) {
      try {
        await remote.rename(temp, candidate);
        return {
          ok: true,
          detail: `Written to ${under(candidate)} on ${this.settings.host} (${uploaded.size} bytes)`,
        };
      } catch (error) {
        const there = await remote.statIfAny(candidate);
        if (!there) throw error;
      }
      const same =
        (await remote.stat(candidate)).size === uploaded.size &&
        (await remoteDigest(remote, candidate)) === uploaded.sha256;
      if (same) {
        await remote.unlinkIfAny(temp);
        return { ok: true, detail: `Already there: ${under(candidate)} on ${this.settings.host}` };
      }
      if (this.settings.if_exists === 'fail') {
        await remote.unlinkIfAny(temp);
        return {
          ok: false,
          retryable: true,
          error: `${relative} exists on ${this.settings.host} with other content`,
        };
      }
    }
    await remote.unlinkIfAny(temp);
    return {
      ok: false,
      retryable: true,
      error: `${relative} and ${path.posix.basename(renamed(final, messageId))} exist on ${this.settings.host} with other content`,
    };
  }

  /** The attempt's failure in words; a connection that may be broken is dropped for the next. */
  #failure(error: unknown): string {
    if (error instanceof SftpConnectError) return error.message;
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof RemoteError) || error.status === undefined) {
      this.sessions.discard();
      return `${message} (connection to ${this.settings.host} port ${this.settings.port})`;
    }
    if (error.status === sftpStatus.failure)
      return `${message} (the server gives no reason; its disk may be full or a quota reached)`;
    return message;
  }
}
