// Covers the AS2 library's self-test that `pier doctor` runs: from the sources it reads the
// repository's test fixtures (compiled, the folder beside its module that the build copies them into), the files the build copies for a release (selfTestCaptureFiles) are
// enough for every case to pass, and a damaged or missing capture fails naming the case and what
// went wrong.
import { copyFile, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { selfTestCaptureFiles, selfTestCases } from './cases.js';
import { capturesDirectory, runAs2SelfTest } from './run.js';

const fixtures = path.resolve(import.meta.dirname, '../../../test/fixtures');

/** A temporary folder holding just the files `npm run build` ships for the self-test. */
async function shippedCopy(t: Test): Promise<string> {
  const copy = await mkdtemp(path.join(os.tmpdir(), 'pier-self-test-'));
  t.teardown(() => rm(copy, { recursive: true, force: true }));
  for (const file of selfTestCaptureFiles) {
    await mkdir(path.dirname(path.join(copy, file)), { recursive: true });
    await copyFile(path.join(fixtures, file), path.join(copy, file));
  }
  return copy;
}

t.test('from the sources, the captures are the test fixtures themselves', async (t) => {
  // The suite runs compiled (test/build-tree.ts), where the build's folder is a link to the fixtures.
  const compiled = import.meta.filename.endsWith('.js');
  t.equal(capturesDirectory, compiled ? path.join(import.meta.dirname, 'test-captures') : fixtures);
  t.ok(selfTestCaptureFiles.includes('as2-line-endings/certificates/server.key'));
  t.ok(selfTestCaptureFiles.includes('pyas2lib-pss/certificates/receiver.key.pem'));
  t.ok(selfTestCaptureFiles.includes('pyas2lib-pss/SOURCE.md'), 'each folder says where it comes from');
  for (const file of selfTestCaptureFiles) t.ok((await readFile(path.join(fixtures, file))).length > 0, file);
});

t.test('every case passes on the captures', async (t) => {
  const result = await runAs2SelfTest();
  t.same(result, { passed: selfTestCases.length, failures: [] });
  t.equal(result.passed, 17, 'eight cases from each of OpenAS2 and Mendelson, one from pyas2lib');
});

t.test('every case passes on just the files the build ships', async (t) => {
  t.same(await runAs2SelfTest(await shippedCopy(t)), { passed: 17, failures: [] });
});

t.test('a damaged capture and a missing one fail, each named', async (t) => {
  const copy = await shippedCopy(t);
  // One byte of the pyas2lib request's body changed: the decryption or the signature must notice.
  const damaged = path.join(copy, 'pyas2lib-pss/signed-encrypted-compressed.http');
  const bytes = await readFile(damaged);
  bytes[bytes.length - 40]! ^= 0x01;
  await writeFile(damaged, bytes);
  await unlink(path.join(copy, 'as2-line-endings/from_openas2/base64_crlf.pkcs7'));
  const result = await runAs2SelfTest(copy);
  t.equal(result.passed, selfTestCases.length - 2);
  t.equal(result.failures.length, 2);
  t.match(result.failures[0], /^as2-line-endings\/from_openas2\/base64_crlf\.pkcs7: ENOENT/);
  t.match(result.failures[1], /^pyas2lib-pss\/signed-encrypted-compressed\.http: \S/);
});
