/**
 * Writing a payload into a remote file: requests pipelined (a loopback round trip per 32 KiB
 * would bound a transfer by latency, not by bandwidth), the file flushed on the server when it
 * offers that, then its size read back, so a short write is never taken for a whole file.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { RemoteError, type Remote } from './remote.js';
import { limits } from '../../limits/limits.js';

export interface Uploaded {
  size: number;
  sha256: string;
}

export async function upload(remote: Remote, source: Readable, file: string): Promise<Uploaded> {
  const handle = await remote.open(file, 'w');
  const hash = createHash('sha256');
  let position = 0;
  let failed: unknown;
  const inFlight = new Set<Promise<void>>();
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      for (let offset = 0; offset < chunk.length; offset += limits.sftpWritePieceBytes) {
        const piece = chunk.subarray(offset, offset + limits.sftpWritePieceBytes);
        hash.update(piece);
        const sent: Promise<void> = remote
          .write(handle, piece, position, file)
          .catch((error: unknown) => {
            failed ??= error;
          })
          .finally(() => inFlight.delete(sent));
        inFlight.add(sent);
        position += piece.length;
        if (inFlight.size >= limits.sftpMaxWritesInFlight) await Promise.race(inFlight);
        if (failed) throw failed;
      }
    }
    await Promise.all(inFlight);
    if (failed) throw failed;
    await remote.flush(handle, file);
  } catch (error) {
    source.destroy();
    await Promise.allSettled(inFlight);
    throw error;
  } finally {
    await remote.close(handle, file).catch(() => {});
  }
  const written = await remote.stat(file);
  if (written.size !== position)
    throw new RemoteError(`${file} holds ${written.size} bytes after writing ${position}`);
  return { size: position, sha256: hash.digest('hex') };
}

/** The SHA-256 of a remote file's bytes, read in one stream. */
export async function remoteDigest(remote: Remote, file: string): Promise<string> {
  const hash = createHash('sha256');
  const { size } = await remote.stat(file);
  for await (const chunk of remote.read(file, size) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}
