/**
 * `Disposition-Notification-Options` (RFC 4130 §7.3):
 * `signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256, sha1`.
 * Partners vary case, blanks and algorithm spelling; all are read.
 */
import {
  micAlgorithmName,
  parseMicAlgorithm,
  type MicAlgorithm,
  type MicSpelling,
} from '../../pki/algorithms/mic-algorithms.js';

export type Importance = 'required' | 'optional';

export interface DispositionNotificationOptions {
  /** `signed-receipt-protocol` asks for pkcs7-signature. */
  signedReceipt: { importance: Importance } | null;
  /** Algorithms in the partner's order of preference, as written. */
  micAlgorithms: { importance: Importance; names: string[] } | null;
  /** The first listed algorithm pier supports, with the partner's spelling; null when none is. */
  chosen: { algorithm: MicAlgorithm; name: string } | null;
  /** A signed receipt or a MIC algorithm was required and pier cannot honour it (RFC 4130: failed/failure). */
  unsupportedRequired: 'signed-receipt-protocol' | 'signed-receipt-micalg' | null;
}

/**
 * Read once per distinct header: a partner sends the same options with every message, and each
 * message reads them twice (the MIC, the receipt). The answers are frozen, as they are shared.
 */
const parsedOptions = new Map<string, Readonly<DispositionNotificationOptions>>();
const maxParsedOptions = 256;

export function parseDispositionNotificationOptions(
  header: string | undefined,
): Readonly<DispositionNotificationOptions> {
  const key = header ?? '';
  let parsed = parsedOptions.get(key);
  if (parsed === undefined) {
    parsed = deepFreeze(readOptions(key));
    if (parsedOptions.size >= maxParsedOptions) parsedOptions.clear();
    parsedOptions.set(key, parsed);
  }
  return parsed;
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const inner of Object.values(value))
    if (inner !== null && typeof inner === 'object') deepFreeze(inner as object);
  return Object.freeze(value);
}

function readOptions(header: string): DispositionNotificationOptions {
  const options: DispositionNotificationOptions = {
    signedReceipt: null,
    micAlgorithms: null,
    chosen: null,
    unsupportedRequired: null,
  };
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    const [first = '', ...values] = part
      .slice(eq + 1)
      .split(',')
      .map((v) => v.trim().replace(/^"|"$/g, ''));
    const importance: Importance = first.toLowerCase() === 'required' ? 'required' : 'optional';
    // Tolerate a missing importance (`signed-receipt-micalg=sha256`): the first value is then a value.
    const list = /^(required|optional)$/i.test(first) ? values : [first, ...values];
    if (name === 'signed-receipt-protocol') {
      const pkcs7 = list.some((v) => v.toLowerCase() === 'pkcs7-signature');
      if (pkcs7) options.signedReceipt = { importance };
      else if (importance === 'required') options.unsupportedRequired = 'signed-receipt-protocol';
    } else if (name === 'signed-receipt-micalg') {
      const names = list.filter((v) => v.length > 0);
      options.micAlgorithms = { importance, names };
      for (const n of names) {
        const algorithm = parseMicAlgorithm(n);
        if (algorithm) {
          options.chosen = { algorithm, name: n };
          break;
        }
      }
      if (!options.chosen && importance === 'required')
        options.unsupportedRequired ??= 'signed-receipt-micalg';
    }
  }
  return options;
}

/** The header pier sends when it wants a signed receipt with these MIC algorithms. */
export function formatDispositionNotificationOptions(
  algorithms: readonly MicAlgorithm[],
  spelling: MicSpelling = 'rfc5751',
): string {
  const names = algorithms.map((a) => micAlgorithmName(a, spelling)).join(', ');
  return `signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, ${names}`;
}
