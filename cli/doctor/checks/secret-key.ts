/**
 * Secret key present and able to open the stored secrets: PIER_SECRET_KEY or the key file is
 * there (the doctor never makes one), and every sealed value in the database opens with it.
 * Neither the key nor any opened value is ever printed: only where a value is kept.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProcessOptions } from '../../../api/process-options.js';
import { SecretBox } from '../../../runtime/index.js';
import { sealedSecrets } from '../../../storage/queries/doctor.js';
import { failed, passed, type CheckResult } from '../checklist.js';
import { limits } from '../../../limits/limits.js';

const id = 'secret-key';
const title = 'Secret key present and opens the stored secrets';

/** The key in use, undefined when there is none; where it comes from, in words. */
async function findKey(options: ProcessOptions): Promise<{ box?: SecretBox; source: string }> {
  if (options.secretKey) return { box: SecretBox.fromText(options.secretKey), source: 'PIER_SECRET_KEY' };
  const file = path.join(options.dataDir, 'secret.key');
  try {
    return { box: SecretBox.fromText((await readFile(file, 'utf8')).trim()), source: file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { source: file };
  }
}

export interface SecretKeyCheck {
  result: CheckResult;
  /** The key, when it opens every stored secret (the partner check needs it). */
  box?: SecretBox;
}

export async function checkSecretKey(em: EntityManager, options: ProcessOptions): Promise<SecretKeyCheck> {
  const sealed = await sealedSecrets(em);
  const { box, source } = await findKey(options);
  if (!box) {
    if (sealed.length === 0) {
      return {
        result: passed(
          id,
          title,
          `no key yet and no stored secrets: pier serve makes ${source} when it first starts`,
        ),
      };
    }
    return {
      result: failed(
        id,
        title,
        `PIER_SECRET_KEY is not set and ${source} does not exist, but the database holds ${sealed.length} sealed secrets`,
        `Set PIER_SECRET_KEY to the key the servers run with, or restore ${source} from a backup ` +
          '(every process of a cluster uses the same key)',
      ),
    };
  }
  const unopened = sealed.filter((s) => {
    try {
      box.open(s.sealed);
      return false;
    } catch {
      return true;
    }
  });
  if (unopened.length === 0) {
    return { box, result: passed(id, title, `${source} opens all ${sealed.length} stored secrets`) };
  }
  const problems = unopened.slice(0, limits.unopenableValuesListed).map((s) => `cannot open ${s.where}`);
  if (unopened.length > limits.unopenableValuesListed)
    problems.push(`and ${unopened.length - limits.unopenableValuesListed} more`);
  return {
    result: failed(
      id,
      title,
      `${source} opens ${sealed.length - unopened.length} of ${sealed.length} stored secrets`,
      'Run pier with the key these secrets were sealed with (PIER_SECRET_KEY, or the secret.key of the data ' +
        'directory used before); a secret sealed with a lost key must be entered again (import the private key, ' +
        'type the password)',
      problems,
    ),
  };
}
