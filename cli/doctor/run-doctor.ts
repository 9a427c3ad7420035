/**
 * `pier doctor`: every check in order, each on its own so that one failing does not hide the
 * others. Checks that need the database wait for it; when it cannot be reached or is not
 * migrated they are shown as skipped. Nothing is changed: no migration, no key file, no alert.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { readProcessOptions } from '../../api/process-options.js';
import type { Database } from '../../storage/connect.js';
import { checkAs2Library } from './checks/as2-self-test.js';
import { checkCertificateReferences, checkExpiringCertificates } from './checks/certificates.js';
import { checkClock } from './checks/clock.js';
import { checkDatabase } from './checks/database.js';
import { checkPartners } from './checks/partners.js';
import { checkPayloadStore } from './checks/payload-store.js';
import { checkPorts } from './checks/ports.js';
import { checkSecretKey } from './checks/secret-key.js';
import { failed, skipped, type CheckResult } from './checklist.js';

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  /** This machine's clock (a test's own to show a skewed one). */
  now?: () => Date;
  /** Where the AS2 self-test's captures are (a test's damaged copy). */
  capturesDirectory?: string;
}

const needsDatabase = [
  ['clock', 'Clock agrees with the database'],
  ['payload-store', 'Payload store writable with free space'],
  ['secret-key', 'Secret key present and opens the stored secrets'],
  ['ports', 'Ports of the enabled instances free or held by pier'],
  ['certificates-expiring', 'Certificates in use valid for more than 30 days'],
  ['certificate-references', 'Profiles and instances refer to stored certificates with their keys'],
  ['partners', 'AS2 partners reachable'],
] as const;

/** A check that throws is a failed check with its words, not a crashed doctor. */
async function guarded(id: string, title: string, check: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await check();
  } catch (error) {
    return failed(
      id,
      title,
      `the check itself failed: ${(error as Error).message}`,
      'Run pier doctor again; if it fails the same way, report it with this line',
    );
  }
}

export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const now = options.now ?? (() => new Date());
  const process = readProcessOptions(options.env);
  const results: CheckResult[] = [];
  const db = await checkDatabase(process);
  results.push(db.result);
  const database: Database | undefined = db.database;
  try {
    if (!database) {
      results.push(
        ...needsDatabase.map(([id, title]) => skipped(id, title, 'not run: the database cannot be reached')),
      );
    } else {
      const em = () => database.orm.em.fork() as EntityManager;
      const [clockId, clockTitle] = needsDatabase[0];
      results.push(await guarded(clockId, clockTitle, () => checkClock(em(), now)));
      if (!db.migrated) {
        results.push(
          ...needsDatabase
            .slice(1)
            .map(([id, title]) => skipped(id, title, 'not run: the database is not migrated')),
        );
      } else {
        const title = (id: string) => needsDatabase.find(([i]) => i === id)![1];
        results.push(
          await guarded('payload-store', title('payload-store'), () =>
            checkPayloadStore(em(), process.dataDir),
          ),
        );
        let secrets: Awaited<ReturnType<typeof checkSecretKey>>['box'];
        results.push(
          await guarded('secret-key', title('secret-key'), async () => {
            const checked = await checkSecretKey(em(), process);
            secrets = checked.box;
            return checked.result;
          }),
        );
        results.push(await guarded('ports', title('ports'), () => checkPorts(em())));
        results.push(
          await guarded('certificates-expiring', title('certificates-expiring'), () =>
            checkExpiringCertificates(em(), now()),
          ),
        );
        results.push(
          await guarded('certificate-references', title('certificate-references'), () =>
            checkCertificateReferences(em()),
          ),
        );
        const box = secrets;
        results.push(
          box
            ? await guarded('partners', title('partners'), () => checkPartners(database.orm, box, now()))
            : skipped('partners', title('partners'), 'not run: the stored secrets cannot be opened'),
        );
      }
    }
  } finally {
    await database?.close();
  }
  results.push(
    await guarded('as2-self-test', 'AS2 library self-test', () => checkAs2Library(options.capturesDirectory)),
  );
  return results;
}
