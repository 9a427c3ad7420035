/**
 * Prepares a benchmark database: migrations, optional data, and a local service account with
 * an API token made through the same services the CLI uses. Returns the token.
 */
import { createApiToken } from '../../api/resources/api-tokens/service.js';
import { createServiceAccount } from '../../api/resources/service-accounts/service.js';
import { readProcessOptions } from '../../api/process-options.js';
import { createApiContext } from '../../api/create-context.js';
import { SecretBox } from '../../runtime/secrets/secret-box.js';
import { migrate, openDatabase, type Orm } from '../../storage/db.js';

export async function prepareWithToken(url: string, prepare?: (orm: Orm) => Promise<void>): Promise<string> {
  const orm = await openDatabase(url);
  try {
    await migrate(orm);
    await prepare?.(orm);
    const ctx = createApiContext({
      orm,
      options: readProcessOptions({ DATABASE_URL: url }),
      // Nothing is sealed here; the server process brings its own key.
      secrets: SecretBox.fromText('benchmark'),
      storageInUse: {
        storage_backend: 'local',
        storage_local_directory: './payloads',
        storage_s3_bucket: '',
        storage_s3_region: '',
        storage_s3_endpoint: '',
      },
      developerBuild: false,
    });
    const system = { kind: 'developer' as const, actor: 'system' };
    await createServiceAccount(ctx, system, {
      name: 'bench',
      description: '',
      kind: 'local',
      enabled: true,
      oidc_issuer: '',
      oidc_subject: '',
    });
    const { token } = await createApiToken(ctx, system, {
      service_account: 'bench',
      label: 'bench',
      expires_in_days: 1,
    });
    ctx.apiTokens.close();
    return token;
  } finally {
    await orm.close();
  }
}
