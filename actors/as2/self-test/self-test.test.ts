// Covers the AS2 library's self-test that `pier doctor` runs: its captures are the repository's
// test fixtures byte for byte, every case passes on them, and a damaged or missing capture fails
// naming the case and what went wrong.
import { cp, mkdtemp, readFile, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { selfTestCases } from './cases.js';
import { capturesDirectory, runAs2SelfTest } from './run.js';

const fixtures = path.resolve(import.meta.dirname, '../../../test/fixtures');

async function filesUnder(directory: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(path.join(directory, prefix), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? filesUnder(directory, path.join(prefix, e.name)) : [path.join(prefix, e.name)],
    ),
  );
  return nested.flat();
}

t.test('the captures are copies of test/fixtures, byte for byte', async (t) => {
  const copies = (await filesUnder(capturesDirectory)).filter((f) => f !== 'README.md');
  t.ok(copies.length >= selfTestCases.length);
  for (const file of copies) {
    t.same(
      await readFile(path.join(capturesDirectory, file)),
      await readFile(path.join(fixtures, file)),
      file,
    );
  }
});

t.test('every case passes on the captures', async (t) => {
  const result = await runAs2SelfTest();
  t.same(result, { passed: selfTestCases.length, failures: [] });
  t.equal(result.passed, 17, 'eight cases from each of OpenAS2 and Mendelson, one from pyas2lib');
});

t.test('a damaged capture and a missing one fail, each named', async (t) => {
  const copy = await mkdtemp(path.join(os.tmpdir(), 'pier-self-test-'));
  t.teardown(() => rm(copy, { recursive: true, force: true }));
  await cp(capturesDirectory, copy, { recursive: true });
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
