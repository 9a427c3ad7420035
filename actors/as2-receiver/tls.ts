/**
 * The receiver's HTTPS identity: the certificate chain and key its start data carries for
 * tls_certificate_id, checked by OpenSSL before the port opens, so a pair that cannot work
 * fails the start instead of every handshake. Nothing here logs the key.
 */
import tls from 'node:tls';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';
import { InitError } from '../../protocol/worker-host/host.js';
import type { As2ReceiverSettings } from './config.js';

/** Server options for https.createServer, or undefined for plain HTTP. */
export function receiverTls(
  settings: As2ReceiverSettings,
  start: ActorStartData,
): tls.SecureContextOptions | undefined {
  if (settings.tls_certificate_id === null) return undefined;
  const opened = start.certificates.tls_certificate_id;
  if (!opened) {
    throw new InitError(
      'TLS_FAILED',
      `tls_certificate_id: certificate ${settings.tls_certificate_id} was not handed to the receiver`,
    );
  }
  const options = { cert: opened.chain_pem, key: opened.private_key_pem };
  try {
    tls.createSecureContext(options);
  } catch (error) {
    throw new InitError(
      'TLS_FAILED',
      `tls_certificate_id: certificate ${settings.tls_certificate_id} cannot serve HTTPS: ${(error as Error).message}`,
    );
  }
  return options;
}
