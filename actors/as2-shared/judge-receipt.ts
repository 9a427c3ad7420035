/**
 * Reading a partner's receipt for a message pier sent (synchronous or asynchronous): its
 * signature against the partner's certificates, its disposition, and its MIC against the
 * one pier computed when sending. The outcome is what the delivery becomes.
 */
import {
  formatDisposition,
  isSuccessful,
  MdnError,
  parseMdn,
  parseMic,
  sameMic,
  type ParsedMdn,
} from '../as2/index.js';
import { certificateOf } from './material.js';

export interface Verdict {
  ok: boolean;
  /** History text: why delivered or not. */
  text: string;
  info: Record<string, unknown>;
}

/** `sent` holds `mic` (the Received-Content-MIC form) and `mdn_signed` as recorded when sending. */
export function judgeReceipt(
  body: Buffer,
  headers: Record<string, string>,
  verificationPems: string[],
  sent: Record<string, unknown>,
): Verdict {
  const requireSigned = sent.mdn_signed === true;
  let mdn: ParsedMdn;
  try {
    mdn = parseMdn(body, headers, {
      verificationCerts: verificationPems.map(certificateOf),
      requireSigned,
    });
  } catch (error) {
    const reason = error instanceof MdnError ? error.reason : 'malformed';
    return {
      ok: false,
      text: `The receipt was refused (${reason}): ${(error as Error).message}`,
      info: { disposition: null, signed: reason !== 'unsigned', verified: false },
    };
  }
  const disposition = mdn.disposition
    ? formatDisposition(mdn.disposition)
    : (mdn.fields.get('disposition') ?? null);
  const info = {
    disposition,
    signed: mdn.signature !== null,
    verified: mdn.signature?.verified ?? false,
    mic: mdn.mic ? `${mdn.mic.digest.toString('base64')}, ${mdn.mic.algorithmName}` : null,
    message_id: headers['message-id'] ?? null,
  };
  if (!mdn.disposition || !isSuccessful(mdn.disposition))
    return { ok: false, text: `The partner refused the message: ${disposition ?? 'no disposition'}`, info };
  const expected = typeof sent.mic === 'string' ? parseMic(sent.mic) : null;
  if (
    expected?.algorithm &&
    (!mdn.mic || !sameMic(mdn.mic, { algorithm: expected.algorithm, digest: expected.digest }))
  ) {
    return {
      ok: false,
      text: `The receipt's MIC ${info.mic ?? '(none)'} differs from ours ${String(sent.mic)}`,
      info,
    };
  }
  return { ok: true, text: `Receipt: ${disposition}`, info };
}
