/**
 * What both SFTP actors check when they start: the login has a usable credential, and the
 * server's host key is pinned. Without a pin the instance does not start: it reads the key the
 * server presents and fails with it in its error (GET /services, the instances page), for the
 * operator to confirm with the partner and pin. Pier never trusts a key on first use.
 */
import { InitError, type CoreClient } from '../../protocol/worker-host/host.js';
import { openSession, SftpConnectError } from './connect.js';
import { credentialProblems, type SftpEndpoint, type SftpSecrets } from './fields.js';
import { SessionKeeper } from './session-keeper.js';

/** `checkStart`, then the sessions the actor works on; a changed host key is told to the core. */
export async function startSessions(
  endpoint: SftpEndpoint,
  secrets: SftpSecrets,
  core: CoreClient,
): Promise<SessionKeeper> {
  await checkStart(endpoint, secrets);
  return new SessionKeeper(endpoint, secrets, (refused) =>
    core.hostKeyChanged(
      `${endpoint.host} port ${endpoint.port}`,
      refused.presented ?? '',
      endpoint.host_key_fingerprint,
    ),
  );
}

export async function checkStart(endpoint: SftpEndpoint, secrets: SftpSecrets): Promise<void> {
  const problems = Object.entries(credentialProblems(secrets));
  if (problems.length > 0)
    throw new InitError(
      'BAD_CONFIGURATION',
      `the configuration is not valid: ${problems.map(([k, v]) => `${k}: ${v}`).join('; ')}`,
    );
  if (endpoint.host_key_fingerprint !== '') return;
  try {
    const session = await openSession(endpoint, secrets);
    session.close();
  } catch (error) {
    if (error instanceof SftpConnectError && error.presented)
      throw new InitError('HOST_KEY_NOT_PINNED', error.message);
    throw new InitError(
      'HOST_KEY_NOT_PINNED',
      `The host key of ${endpoint.host} port ${endpoint.port} is not pinned, and the server could not be asked for it: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  // openSession refuses every unpinned key, so this is not reached.
  throw new InitError('HOST_KEY_NOT_PINNED', 'The host key is not pinned');
}
