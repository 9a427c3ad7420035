/**
 * Reading a partner's receipt for a message pier sent (synchronous or asynchronous): its
 * signature against the partner's certificates, its disposition, and its MIC against the
 * one pier computed when sending. The outcome is what the delivery becomes.
 *
 * The MIC rules (docs/interop.md, "Receipts"): a MIC the receipt carries must equal ours. A
 * missing MIC fails the delivery only where it proves something: a signed receipt for a message
 * pier signed. RFC 4130 §7.4.3 makes the MIC optional in unsigned receipts, and for a message
 * pier did not sign there is no signature whose content the MIC would vouch for. A
 * `processed/Warning` receipt (pyas2lib's answer to a repeated Message-ID, without a MIC) is
 * delivered with its warning in the history.
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
import type { MetricsPort } from '../../protocol/metrics/port.js';
import { limits } from '../../limits/limits.js';

/**
 * Why a receipt was not accepted, for a tally (`pier bench` counts failures by it): unreadable,
 * a signature that does not verify, unsigned where signed was asked, a refusing disposition, a
 * MIC that differs from ours, or a signed receipt without the MIC it should prove.
 */
export type ReceiptFailure = 'malformed' | 'signature' | 'unsigned' | 'disposition' | 'mic' | 'mic-missing';

export interface Verdict {
  ok: boolean;
  /** History text: why delivered or not. */
  text: string;
  info: Record<string, unknown>;
  /** null when `ok`. */
  failure: ReceiptFailure | null;
  /** The receipt's Original-Message-ID, when it could be read. */
  originalMessageId: string | null;
}

/** A receipt received, for the process's metrics: processed, or refused (by the partner or by us). */
export function countReceipt(metrics: MetricsPort, verdict: Verdict): void {
  metrics.count('pier_as2_mdns_total', {
    direction: 'received',
    outcome: verdict.ok ? 'processed' : 'refused',
  });
}

/**
 * `sent` holds `mic` (the Received-Content-MIC form), `mdn_signed` and `signed` as recorded
 * when sending.
 */
export function judgeReceipt(
  body: Buffer,
  headers: Record<string, string>,
  verificationPems: string[],
  sent: Record<string, unknown>,
): Verdict {
  const requireSigned = sent.mdn_signed === true;
  let mdn: ParsedMdn;
  try {
    // An unsigned receipt is read even where a signed one was asked for, so that what the
    // partner said can be shown; it is refused below all the same.
    mdn = parseMdn(body, headers, { verificationCerts: verificationPems.map(certificateOf) });
  } catch (error) {
    const reason = error instanceof MdnError ? error.reason : 'malformed';
    return {
      ok: false,
      text: `The receipt was refused (${reason}): ${(error as Error).message}`,
      info: { disposition: null, signed: reason !== 'unsigned', verified: false },
      failure: reason,
      originalMessageId: null,
    };
  }
  const disposition = mdn.disposition
    ? formatDisposition(mdn.disposition)
    : (mdn.fields.get('disposition') ?? null);
  const explanation = partnerExplanation(mdn);
  const info = {
    disposition,
    signed: mdn.signature !== null,
    verified: mdn.signature?.verified ?? false,
    mic: mdn.mic ? `${mdn.mic.digest.toString('base64')}, ${mdn.mic.algorithmName}` : null,
    message_id: headers['message-id'] ?? null,
    explanation,
  };
  const said = `${disposition ?? 'no disposition'}${explanation ? ` (${explanation})` : ''}`;
  const originalMessageId = mdn.originalMessageId;
  const refused = (failure: ReceiptFailure, text: string): Verdict => ({
    ok: false,
    text,
    info,
    failure,
    originalMessageId,
  });
  if (requireSigned && !mdn.signature)
    return refused(
      'unsigned',
      `The receipt was refused (unsigned): a signed receipt was requested, so an unsigned one proves nothing. The partner said: ${said}`,
    );
  if (!mdn.disposition || !isSuccessful(mdn.disposition))
    return refused('disposition', `The partner refused the message: ${said}`);
  const warning = mdn.disposition.modifier?.kind === 'warning' ? mdn.disposition.modifier.description : null;
  const expected = typeof sent.mic === 'string' ? parseMic(sent.mic) : null;
  const notes: string[] = [];
  if (mdn.mic) {
    if (expected?.algorithm && !sameMic(mdn.mic, { algorithm: expected.algorithm, digest: expected.digest }))
      return refused('mic', `The receipt's MIC ${info.mic} differs from ours ${String(sent.mic)}`);
  } else if (expected?.algorithm) {
    // Records made before `signed` was stored count as signed: the stricter reading.
    const provable = mdn.signature !== null && sent.signed !== false;
    if (provable && warning === null)
      return refused(
        'mic-missing',
        `The signed receipt carries no MIC (Received-Content-MIC missing); ours is ${String(sent.mic)}`,
      );
    notes.push(
      mdn.signature === null
        ? 'The receipt carried no MIC (optional in an unsigned receipt).'
        : sent.signed === false
          ? 'The receipt carried no MIC (the message was not signed, so there was none to prove).'
          : 'The receipt carried no MIC.',
    );
  }
  if (warning !== null) notes.unshift(`The partner processed it with a warning: ${warning}.`);
  return { ok: true, text: [`Receipt: ${said}`, ...notes].join(' '), info, failure: null, originalMessageId };
}

/** The partner's own words: Error/Warning/Failure fields and the human-readable part, shortened. */
function partnerExplanation(mdn: ParsedMdn): string | null {
  const words: string[] = [];
  for (const name of ['error', 'warning', 'failure']) {
    const value = mdn.fields.get(name);
    if (value) words.push(value);
  }
  if (mdn.text.trim()) words.push(mdn.text);
  const text = words.join(' ').replace(/\s+/g, ' ').trim();
  if (!text) return null;
  return text.length > limits.receiptExplanationChars
    ? `${text.slice(0, limits.receiptExplanationChars - 1)}…`
    : text;
}
