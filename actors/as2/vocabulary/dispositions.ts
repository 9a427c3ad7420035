/**
 * The Disposition field of an MDN (RFC 8098 §3.2.6, with AS2's modifiers from RFC 4130 §7.4.3
 * and RFC 5402), in one table. Code never writes a disposition string by hand: it builds a
 * `Disposition` and calls `formatDisposition`.
 */

/** Modifiers of `processed/error: <modifier>`. `source` says where each one is defined. */
export const errorModifiers = {
  'authentication-failed': {
    source: 'RFC 4130 §7.4.3',
    meaning: 'The signer is not one of the partner’s verification certificates.',
  },
  'decompression-failed': {
    source: 'RFC 5402 §5',
    meaning: 'The compressed layer could not be decompressed.',
  },
  'decryption-failed': {
    source: 'RFC 4130 §7.4.3',
    meaning: 'The message could not be decrypted with any of our decryption keys.',
  },
  'insufficient-message-security': {
    source: 'RFC 4130 §7.4.3',
    meaning: 'The message is less protected (unsigned or unencrypted) than the partner agreement requires.',
  },
  'integrity-check-failed': {
    source: 'RFC 4130 §7.4.3',
    meaning: 'The signature does not match the content: the message was altered or damaged.',
  },
  'unexpected-processing-error': {
    source: 'RFC 4130 §7.4.3',
    meaning: 'Any other failure (malformed MIME, unsupported structure).',
  },
  'unknown-trading-partner': {
    source: 'de facto (Mendelson, pyAS2, Cleo); not in RFC 4130',
    meaning: 'AS2-From or AS2-To names no configured partner or organization.',
  },
} as const;

/** Modifiers of `failed/failure: <modifier>` (RFC 4130 §7.4.3): the request itself cannot be honoured. */
export const failureModifiers = {
  'unsupported format': { source: 'RFC 4130 §7.4.3' },
  'unsupported MIC-algorithms': { source: 'RFC 4130 §7.4.3' },
  'sender-equals-receiver': { source: 'RFC 4130 §7.4.3' },
} as const;

/** Modifiers of `processed/warning: <modifier>`: processed, with a remark. */
export const warningModifiers = {
  'duplicate-document': { source: 'RFC 4130 §7.4.3' },
} as const;

export type ErrorModifier = keyof typeof errorModifiers;
export type FailureModifier = keyof typeof failureModifiers;
export type WarningModifier = keyof typeof warningModifiers;

const actionModes = ['automatic-action', 'manual-action'] as const;
const sendingModes = ['MDN-sent-automatically', 'MDN-sent-manually'] as const;
/** RFC 8098 types plus `failed`, which RFC 3798 had and AS2 (RFC 4130) still uses. */
const dispositionTypes = ['processed', 'failed', 'displayed', 'deleted', 'dispatched'] as const;

export type ActionMode = (typeof actionModes)[number];
export type SendingMode = (typeof sendingModes)[number];
export type DispositionType = (typeof dispositionTypes)[number];

export interface DispositionModifier {
  kind: 'error' | 'warning' | 'failure';
  /** As written: one of the tables above when pier wrote it, anything when a partner did. */
  description: string;
}

export interface Disposition {
  actionMode: ActionMode;
  sendingMode: SendingMode;
  type: DispositionType;
  modifier: DispositionModifier | null;
}

/** The disposition pier sends for a message it took. */
export const processed: Disposition = {
  actionMode: 'automatic-action',
  sendingMode: 'MDN-sent-automatically',
  type: 'processed',
  modifier: null,
};

export function processedWithError(modifier: ErrorModifier): Disposition {
  return { ...processed, modifier: { kind: 'error', description: modifier } };
}

export function failedWithFailure(modifier: FailureModifier): Disposition {
  return { ...processed, type: 'failed', modifier: { kind: 'failure', description: modifier } };
}

/** `automatic-action/MDN-sent-automatically; processed/error: decryption-failed` (RFC 4130's casing). */
export function formatDisposition(d: Disposition): string {
  const base = `${d.actionMode}/${d.sendingMode}; ${d.type}`;
  if (!d.modifier) return base;
  const kind =
    d.modifier.kind === 'failure' ? 'Failure' : d.modifier.kind === 'warning' ? 'Warning' : 'Error';
  return `${base}/${kind}: ${d.modifier.description}`;
}

export class DispositionSyntaxError extends Error {
  constructor(readonly text: string) {
    super(`Not a disposition: ${JSON.stringify(text.slice(0, 200))}`);
    this.name = 'DispositionSyntaxError';
  }
}

function oneOf<T extends string>(list: readonly T[], word: string): T | undefined {
  return list.find((item) => item.toLowerCase() === word.toLowerCase());
}

/**
 * Reads a partner's Disposition field. Case and blanks vary between gateways
 * (`processed/Error: x`, `processed/error:x`), so both are ignored; RFC 8098's
 * `disposition-modifier` list (`processed/error, warning`) keeps only the first modifier.
 */
export function parseDisposition(text: string): Disposition {
  const match = /^\s*([\w-]+)\s*\/\s*([\w-]+)\s*;\s*([\w-]+)\s*(?:\/\s*([\w-]+)\s*(?::\s*(.*?))?)?\s*$/s.exec(
    text,
  );
  if (!match) throw new DispositionSyntaxError(text);
  const [, action, sending, type, modifierKind, description] = match;
  const actionMode = oneOf(actionModes, action!);
  const sendingMode = oneOf(sendingModes, sending!);
  const dispositionType = oneOf(dispositionTypes, type!);
  if (!actionMode || !sendingMode || !dispositionType) throw new DispositionSyntaxError(text);
  let modifier: DispositionModifier | null = null;
  if (modifierKind) {
    const kind = oneOf(['error', 'warning', 'failure'] as const, modifierKind);
    if (!kind) throw new DispositionSyntaxError(text);
    modifier = { kind, description: (description ?? '').split(',')[0]!.trim() };
  }
  return { actionMode, sendingMode, type: dispositionType, modifier };
}

/** Processed without an error or failure: the sender may mark the message delivered. */
export function isSuccessful(d: Disposition): boolean {
  return d.type === 'processed' && (d.modifier === null || d.modifier.kind === 'warning');
}
