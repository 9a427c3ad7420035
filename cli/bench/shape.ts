/**
 * What `pier bench as2` sends and to whom: an AS2 sender's view of a partner (the same
 * As2OutboundContext the sender actor packs with), from command-line flags or from this
 * install's records (`--partner`), with the message shape's flags laid over it.
 */
import { readFileSync } from 'node:fs';
import { defaultInteropOptions } from '../../actors/as2/index.js';
import type { As2OutboundContext } from '../../protocol/as2-protocol.js';
import { signingChoiceOf } from '../../pki/algorithms/signing-choices.js';
import { UsageError } from '../args.js';

/** How the receipt is asked for: synchronous signed or unsigned, asynchronous, or none. */
export const receiptModes = ['sync-signed', 'sync-unsigned', 'async', 'none'] as const;
export type ReceiptMode = (typeof receiptModes)[number];

const ciphers = ['none', '3des', 'aes128-cbc', 'aes192-cbc', 'aes256-cbc', 'aes128-gcm', 'aes256-gcm'];

/** The shape flags; each left undefined keeps the partner's profile (or the default without one). */
export interface ShapeFlags {
  sign?: string;
  encrypt?: string;
  compress?: boolean;
  receipts?: string;
  receiptUrl?: string;
}

export interface IdentityFlags {
  url: string;
  from: string;
  to: string;
  key: string;
  cert: string;
  partnerCert: string;
  /** The receipt's signer when it is not the partner's encryption certificate. */
  receiptCert?: string;
}

/** A PEM file's text; a file that cannot be read is a usage error naming the flag. */
export const readPem = (file: string, what: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
};

/** Who sends to whom, where, with which keys: what a default context needs (PEM texts). */
export interface ContextParties {
  url: string;
  from: string;
  to: string;
  certificatePem: string;
  keyPem: string;
  partnerPem: string;
  /** The receipt's signer; the partner's certificate when left out. */
  receiptPem?: string;
}

/** A sender's context of pier bench's default shape: SHA-256, AES-256-CBC, compressed, signed synchronous receipts. */
export function defaultContext(p: ContextParties): As2OutboundContext {
  return {
    found: true,
    organization_as2id: p.from,
    partner_as2id: p.to,
    partner_id: 0,
    endpoint: p.url,
    signing_algorithm: 'sha256',
    encryption_algorithm: 'aes256-cbc',
    compression: true,
    mdn_mode: 'sync',
    mdn_signed: true,
    receipt_timeout_hours: 1,
    async_mdn_url: '',
    signing: { certificate_pem: p.certificatePem, private_key_pem: p.keyPem },
    encryption: p.partnerPem,
    verification: [p.receiptPem ?? p.partnerPem],
    ecmqv_keys: [],
    tls_verify: true,
    tls_trusted: [],
    tls_client: null,
    http_basic_user: '',
    http_basic_password: '',
    http_headers: [],
    interop: defaultInteropOptions,
    as2bis: false,
  };
}

/** A sender's context from flags alone, of the default shape. */
export function contextFromFlags(flags: IdentityFlags): As2OutboundContext {
  return defaultContext({
    url: flags.url,
    from: flags.from,
    to: flags.to,
    certificatePem: readPem(flags.cert, '--cert'),
    keyPem: readPem(flags.key, '--key'),
    partnerPem: readPem(flags.partnerCert, '--partner-cert'),
    ...(flags.receiptCert ? { receiptPem: readPem(flags.receiptCert, '--receipt-cert') } : {}),
  });
}

/** The receipt mode a context asks for. */
export function receiptModeOf(context: As2OutboundContext): ReceiptMode {
  if (context.mdn_mode === 'sync') return context.mdn_signed ? 'sync-signed' : 'sync-unsigned';
  return context.mdn_mode;
}

/** `context` with the shape flags that were given laid over it; wrong values are usage errors. */
export function withShape(context: As2OutboundContext, shape: ShapeFlags): As2OutboundContext {
  const next = { ...context };
  if (shape.sign !== undefined) {
    if (shape.sign !== 'none' && !signingChoiceOf(shape.sign))
      throw new UsageError(
        `--sign is none or a signing algorithm such as sha256, rsa-pss-sha256 (got ${shape.sign})`,
      );
    next.signing_algorithm = shape.sign;
  }
  if (shape.encrypt !== undefined) {
    if (!ciphers.includes(shape.encrypt))
      throw new UsageError(`--encrypt is one of ${ciphers.join(', ')} (got ${shape.encrypt})`);
    next.encryption_algorithm = shape.encrypt;
  }
  if (shape.compress !== undefined) next.compression = shape.compress;
  if (shape.receipts !== undefined) {
    if (!(receiptModes as readonly string[]).includes(shape.receipts))
      throw new UsageError(`--receipts is one of ${receiptModes.join(', ')} (got ${shape.receipts})`);
    const mode = shape.receipts as ReceiptMode;
    next.mdn_mode = mode === 'sync-signed' || mode === 'sync-unsigned' ? 'sync' : mode;
    next.mdn_signed = mode === 'sync-signed' || (mode === 'async' && context.mdn_signed);
  }
  if (shape.receiptUrl !== undefined) next.async_mdn_url = shape.receiptUrl;
  if (next.mdn_mode === 'async' && !next.async_mdn_url)
    throw new UsageError(
      'Asynchronous receipts need --receipt-url: the address this command listens on for them',
    );
  return next;
}
