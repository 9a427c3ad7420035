/**
 * The AS2 protocol library the receiver and sender actors use: what they import, in one place.
 * Everything here is synchronous CPU work (node:crypto, node:zlib) meant for the actor's own
 * worker thread.
 */
export { packOutgoing, LegacyAlgorithmError, type PackOptions, type PackedMessage } from './pack.js';
export { unpackIncoming, type UnpackOptions, type UnpackedMessage, type Layer } from './unpack.js';
export type { DecryptionKey } from '../../pki/cms/enveloped-data.js';
export { buildMdn, type MdnFields, type BuiltMdn } from './mdn/build.js';
export { parseMdn, MdnError, type ParsedMdn, type ParseMdnOptions } from './mdn/parse.js';
export { formatMic, parseMic, sameMic, type Mic, type ReceivedMic } from './mic.js';
export {
  parseDispositionNotificationOptions,
  formatDispositionNotificationOptions,
  type DispositionNotificationOptions,
} from './disposition-options.js';
export {
  defaultInteropOptions,
  type InteropOptions,
  type InteropPresetName,
} from '../../protocol/as2/interop-presets.js';
export { DispositionError } from './vocabulary/disposition-error.js';
export {
  formatDisposition,
  isSuccessful,
  processed,
  processedWithError,
  type Disposition,
  type ErrorModifier,
} from './vocabulary/dispositions.js';
export { type MicAlgorithm, type MicSpelling } from '../../pki/algorithms/mic-algorithms.js';
export type {
  ContentEncryption,
  KeyTransport,
  SignatureScheme,
} from '../../pki/algorithms/encryption-algorithms.js';
