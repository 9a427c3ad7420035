/**
 * node:crypto calls made without the errors Node 24 makes on the way in. Since Node 24.x
 * hardened its key objects (nodejs/node#63111), node:crypto tells a KeyObject or a CryptoKey
 * from any other argument by reading the object's native slots and catching the TypeError
 * that this throws for anything else. A Buffer given as a cipher key, or an options object
 * (`{ key, padding }`) given to privateDecrypt, is asked both questions before it is used, and
 * each failed question builds an error with a stack trace: on the AS2 receive path four per
 * message, about 3 % of the server's CPU at concurrency 16 (perf: v8::Exception::TypeError under
 * NativeKeyObject::GetSlots, 1.9 % of every sample on the machine; benchmarks/history/
 * 2026-11-28-node-24-key-checks-without-errors.md). Node 20 checks with instanceof and makes
 * none; there the helpers cost about a microsecond a call.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';

/**
 * A cipher key as a KeyObject, which the cipher takes at the first question. createSecretKey
 * reads its bytes without asking (a Buffer is all it takes), so it makes no error either. The
 * KeyObject keeps a copy of the key until it is collected, as the cipher's own context does:
 * zeroing the caller's bytes afterwards still clears what the caller holds.
 */
export function cipherKey(bytes: Uint8Array): KeyObject {
  return createSecretKey(bytes);
}

/**
 * Runs `operation` (one node:crypto call given an options object) with stack traces off, so
 * the questions its options fail build no trace. An error the call itself throws keeps its
 * message but no stack trace.
 */
export function withoutStackTraces<T>(operation: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return operation();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
