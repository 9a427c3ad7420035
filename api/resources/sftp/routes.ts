/**
 * The SFTP instances' connection check and host key pinning. The check runs here, in the API's
 * process, with the instance's stored settings and secrets (not in the instance's thread), so it
 * works for an instance that does not run: the usual case at first contact, when an unpinned
 * instance refuses to start. Pinning reads the key the server presents without logging in and
 * stores it only when it is the one the operator confirmed.
 */
import { z } from 'zod';
import type { SftpSecrets } from '../../../actors/sftp-shared/fields.js';
import { normalFingerprint } from '../../../actors/sftp-shared/fingerprint.js';
import type { SftpPollerSettings } from '../../../actors/sftp-poller/config.js';
import type { SftpSenderSettings } from '../../../actors/sftp-sender/config.js';
import { loadInstanceConfig } from '../../../runtime/index.js';
import { freshEm, type ApiContext } from '../../context.js';
import { notFound, validationError } from '../../errors.js';
import type { ApiRouter } from '../../http/router.js';
import { recordName } from '../../schemas/common.js';
import { anyPluginConfigRecord } from '../../schemas/plugin-config.js';
import { PinHostKeyBody, SftpCheckAnswer } from '../../schemas/sftp.js';
import { followUpdated } from '../plugin-configs/instance-state.js';
import { updatePluginConfig } from '../plugin-configs/service.js';

const sftpTypes = ['sftp-poller', 'sftp-sender'] as const;

/**
 * The SSH client (ssh2) is loaded at the first check or pin, not by every API process at its
 * start: most never check an SFTP server, and its modules took 45 ms of CPU at each start.
 */
const sshClient = () => import('../../../actors/sftp-shared/connect.js');
const connectionCheck = () => import('../../../actors/sftp-shared/check-connection.js');

export function registerSftpRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'SFTP';
  for (const type of sftpTypes) {
    const load = async (name: string) => {
      const config = await loadInstanceConfig(freshEm(ctx), ctx.secrets, type, name);
      if (!config) throw notFound(`Plugin configuration ${type}/${name}`);
      return config;
    };
    router.add({
      method: 'POST',
      url: `/plugins/configs/${type}/:name/check-connection`,
      tag,
      summary:
        "Check the way to the instance's SFTP server step by step (resolve, connect, host_key, authenticate, list, write) " +
        'without transferring a message; answers the host key the server presents, for a first contact to confirm',
      params: z.object({ name: recordName }),
      response: SftpCheckAnswer,
      errors: ['NOT_FOUND'],
      handler: async ({ params }) => {
        const config = await load(params.name);
        const settings = config.settings as unknown as SftpPollerSettings | SftpSenderSettings;
        const processed =
          'after_take' in settings && settings.after_take === 'move'
            ? settings.processed_directory
            : undefined;
        const { checkSftpConnection } = await connectionCheck();
        return checkSftpConnection(
          { ...settings, ...(processed ? { processed_directory: processed } : {}) },
          config.secrets as SftpSecrets,
        );
      },
    });
    router.add({
      method: 'POST',
      url: `/plugins/configs/${type}/:name/pin-host-key`,
      tag,
      summary:
        "Pin the server's host key: the fingerprint the operator confirmed with the partner, which the server must " +
        'present now; effective when the instance (re)starts',
      params: z.object({ name: recordName }),
      body: PinHostKeyBody,
      response: anyPluginConfigRecord,
      errors: ['NOT_FOUND'],
      handler: async ({ params, body, caller }) => {
        const config = await load(params.name);
        const wanted = normalFingerprint(body.fingerprint);
        if (!wanted)
          throw validationError({
            fingerprint:
              'Must be a SHA256 fingerprint as OpenSSH prints it: SHA256: and 43 base64 characters',
          });
        const { readHostKey, SftpConnectError } = await sshClient();
        let presented: string;
        try {
          presented = await readHostKey(config.settings as unknown as SftpSenderSettings);
        } catch (error) {
          const why = error instanceof SftpConnectError ? error.message : String(error);
          throw validationError({ fingerprint: `The server's host key could not be read: ${why}` });
        }
        if (presented !== wanted)
          throw validationError({
            fingerprint: `The server presents ${presented} now, not this fingerprint; nothing was pinned`,
          });
        const record = await updatePluginConfig(ctx, caller, type, params.name, {
          host_key_fingerprint: wanted,
        });
        return { ...record, restart_needed: await followUpdated(ctx, type, params.name) };
      },
    });
  }
}
