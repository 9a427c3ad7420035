/**
 * Per-partner interoperability options and the named presets that bundle them, as data with
 * the reason for each setting. The sender actor reads these from the partner profile;
 * `docs/interop.md` documents them and a test keeps the two in step.
 */
import { keyTransportAlgorithms, type KeyTransport } from '../../pki/algorithms/encryption-algorithms.js';
import {
  keyAgreementChoices,
  type KeyAgreementChoice,
} from '../../pki/algorithms/key-agreement-algorithms.js';
import type { MicSpelling } from '../../pki/algorithms/mic-algorithms.js';

/** Content-Transfer-Encodings pier writes for the document part. */
export type TransferEncoding = 'binary' | 'base64';

export interface InteropOptions {
  /** Signed attributes (content type, signing time, message digest) in the signature. */
  signedAttributes: boolean;
  /** The RFC 6211 CMSAlgorithmProtection signed attribute. */
  algorithmProtection: boolean;
  /** Content-Transfer-Encoding of the document part (always written, never left out). */
  transferEncoding: TransferEncoding;
  /** `sha-256` (rfc5751) or `sha256` (rfc3851) in micalg and Disposition-Notification-Options. */
  micSpelling: MicSpelling;
  keyTransport: KeyTransport;
  /** Key agreement to an EC certificate: ECDH ephemeral-static, or 1-pass ECMQV with our static key. */
  keyAgreement: KeyAgreementChoice;
  /** HTTP framing of the request body: Content-Length or chunked transfer coding. */
  bodyFraming: 'content-length' | 'chunked';
  /** Content-Disposition filename as a quoted string or a bare token. */
  filenameQuoting: 'quoted' | 'token';
}

/** Every value each non-boolean option takes, for the schemas that store and carry them. */
export const interopChoices = {
  transferEncoding: ['binary', 'base64'],
  micSpelling: ['rfc5751', 'rfc3851'],
  keyTransport: Object.keys(keyTransportAlgorithms) as [KeyTransport, ...KeyTransport[]],
  keyAgreement: keyAgreementChoices,
  bodyFraming: ['content-length', 'chunked'],
  filenameQuoting: ['quoted', 'token'],
} as const satisfies {
  [K in keyof InteropOptions as InteropOptions[K] extends boolean ? never : K]: readonly InteropOptions[K][];
};

/** What pier sends unless a partner needs otherwise: current RFCs, widely read forms. */
export const defaultInteropOptions: InteropOptions = {
  signedAttributes: true,
  algorithmProtection: true,
  transferEncoding: 'binary',
  micSpelling: 'rfc5751',
  keyTransport: 'rsa-pkcs1',
  keyAgreement: 'ecdh',
  bodyFraming: 'content-length',
  filenameQuoting: 'quoted',
};

export interface InteropPreset {
  description: string;
  settings: Partial<InteropOptions>;
  /** One reason per setting above. */
  reasons: Partial<Record<keyof InteropOptions, string>>;
}

export const interopPresets = {
  'ibm-sterling': {
    description: 'IBM Sterling B2B Integrator and File Gateway',
    settings: { algorithmProtection: false, transferEncoding: 'binary' },
    reasons: {
      algorithmProtection:
        'Sterling fails to verify signatures carrying the CMSAlgorithmProtection attribute that OpenSSL 3 and BouncyCastle add; if it still refuses, turn signed attributes off too.',
      transferEncoding:
        'Sterling canonicalises line ends when Content-Transfer-Encoding is missing, breaking the MIC; pier always writes `binary` explicitly.',
    },
  },
  biztalk: {
    description: 'Microsoft BizTalk Server',
    settings: { keyTransport: 'rsa-oaep', bodyFraming: 'chunked' },
    reasons: {
      keyTransport:
        'BizTalk partners are commonly configured for RSAES-OAEP key transport (SHA-1 parameters).',
      bodyFraming:
        'BizTalk sends and accepts chunked uploads; streaming large files needs no length up front.',
    },
  },
  mendelson: {
    description: 'mendelson AS2',
    settings: { transferEncoding: 'binary' },
    reasons: {
      transferEncoding: 'mendelson rejects `Content-Transfer-Encoding: base64` on the document part.',
    },
  },
  liaison: {
    description: 'Liaison (OpenText) Delta / ECS',
    settings: { bodyFraming: 'content-length' },
    reasons: { bodyFraming: 'Liaison refuses chunked requests: the body must carry Content-Length.' },
  },
  openas2: {
    description: 'OpenAS2 4.x',
    settings: { keyTransport: 'rsa-pkcs1', transferEncoding: 'binary' },
    reasons: {
      keyTransport:
        'OpenAS2 opens RSA key transport with BouncyCastle’s PKCS#1 v1.5 unwrapper only (BcRSAKeyTransEnvelopedRecipient), so a message encrypted with RSAES-OAEP fails to decrypt there.',
      transferEncoding:
        'OpenAS2 computes the MIC over the bytes as they are only when the part says `binary`, and canonicalises line ends otherwise; `binary` is also its own default.',
    },
  },
} as const satisfies Record<string, InteropPreset>;

export type InteropPresetName = keyof typeof interopPresets;
export const interopPresetNames = Object.keys(interopPresets) as [InteropPresetName, ...InteropPresetName[]];

/** The options for a partner: defaults, then the preset, then the partner's own overrides. */
export function interopOptions(
  preset: InteropPresetName | null,
  overrides: Partial<InteropOptions> = {},
): InteropOptions {
  return { ...defaultInteropOptions, ...(preset ? interopPresets[preset].settings : {}), ...overrides };
}
