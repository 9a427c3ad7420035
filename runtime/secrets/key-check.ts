/**
 * Makes sure the secret key in use is the one the stored secrets were sealed with. Without
 * this, a changed PIER_SECRET_KEY or a lost key file would surface later as failures to
 * open a profile's password or a certificate's private key.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from './secret-box.js';
import { inEntityTx } from '../../storage/sql.js';

const knownValue = 'pier secret key check';

export async function checkSecretKey(em: EntityManager, secrets: SecretBox): Promise<void> {
  const conn = inEntityTx(em);
  const [row] = await conn.all<{ secret_check: string }>('select secret_check from settings where id = 1');
  if (!row) throw new Error('The settings record is missing; run pier migrate');
  if (row.secret_check === '') {
    // First start with this database: remember the key by a value sealed with it.
    await conn.all("update settings set secret_check = ? where id = 1 and secret_check = ''", [
      secrets.seal(knownValue),
    ]);
    return;
  }
  let opened: string | undefined;
  try {
    opened = secrets.openText(row.secret_check);
  } catch {
    opened = undefined;
  }
  if (opened !== knownValue) {
    throw new Error(
      'The secret key (PIER_SECRET_KEY, or secret.key in the data directory) is not the one this database’s ' +
        'secrets were sealed with; start pier with the original key',
    );
  }
}
