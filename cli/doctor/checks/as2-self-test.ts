/** The AS2 library's self-test over its captures (actors/as2/self-test/run.ts: capturesDirectory). */
import { capturesDirectory, runAs2SelfTest } from '../../../actors/as2/self-test/run.js';
import { failed, passed, type CheckResult } from '../checklist.js';

const id = 'as2-self-test';
const title = 'AS2 library self-test';

export async function checkAs2Library(directory = capturesDirectory): Promise<CheckResult> {
  const { passed: count, failures } = await runAs2SelfTest(directory);
  if (failures.length === 0) {
    return passed(
      id,
      title,
      `${count} captured messages from OpenAS2, Mendelson AS2 and pyas2lib read as their senders meant`,
    );
  }
  return failed(
    id,
    title,
    `${failures.length} of ${count + failures.length} captured messages are not read as their senders meant`,
    `Reinstall pier (\`npm ci\`) so that ${directory} is complete and unchanged, on a Node.js with its ` +
      'bundled OpenSSL; if it still fails, report the lines above as a bug',
    failures,
  );
}
