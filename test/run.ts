/**
 * `npm test`: compiles the checkout into the tree the tests run from (test/build-tree.ts;
 * the compile is the type check), makes sure a PostgreSQL is there (DATABASE_URL, else an embedded
 * one under .test-pg), then runs every *.test.ts, compiled, as plain node processes (test/runner.ts)
 * and prints the totals.
 * Each test file creates and drops its own database on that server.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { startEmbeddedPostgres } from '../storage/embedded-postgres.js';
import { buildRoot, buildTestTree } from './build-tree.js';
import { testFolders } from './code-folders.js';
import { runTestFiles, type FileTiming } from './runner.js';
import { earlierTimings, timingLog, timingReport, writeTimingReport } from './timings.js';
import { isTestSet, needsNode, runApart, testSets } from './sets.js';
import { createMigratedTemplate, templateVariable } from './helpers/database.js';

const root = path.resolve(import.meta.dirname, '..');
function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(full));
    else if (entry.name.endsWith('.test.ts')) out.push(path.relative(root, full));
  }
  return out.sort();
}

/** The test files an entry of a set names: the file, or a folder's files. */
function filesOf(entry: string): string[] {
  return entry.endsWith('.test.ts') ? [entry] : testFiles(path.join(root, entry));
}

/**
 * Files that need a newer Node than this one (test/sets.ts, `needsNode`) are left out, saying so:
 * .ci/run's whole suite on Node 24 runs them, and a file that cannot run here would only fail.
 */
function leaveOutWhatThisNodeCannotRun(chosen: string[]): string[] {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return chosen.filter((file) => {
    const need = needsNode[file];
    if (!need || major > need[0] || (major === need[0] && minor >= need[1])) return true;
    process.stdout.write(
      `# left out on Node ${process.versions.node}: ${file} needs Node ${need[0]}.${need[1]} or later (.ci/run's pass on Node 24 runs it)\n`,
    );
    return false;
  });
}

/** `--set NAME` (test/sets.ts) runs that set; files given run alone; else every file outside the sets run apart. */
function chosenFiles(args: string[]): string[] {
  if (args[0] === '--set') {
    const name = args[1] ?? '';
    if (!isTestSet(name)) {
      process.stderr.write(
        `No test set is named "${name}"; the sets are ${Object.keys(testSets).join(', ')}.\n`,
      );
      process.exit(2);
    }
    return [...new Set(testSets[name].flatMap(filesOf))].sort();
  }
  const requested = args.map((file) => path.relative(root, path.resolve(file)));
  if (requested.length > 0) return requested;
  const apart = new Set(runApart.flatMap((name) => testSets[name].flatMap(filesOf)));
  return testFolders
    .flatMap((folder) => testFiles(path.join(root, folder)))
    .filter((file) => !apart.has(file));
}

const args = process.argv.slice(2);
const files = leaveOutWhatThisNodeCannotRun(chosenFiles(args));
/**
 * A run of named files or of a set keeps its timings apart from the whole suite's report, under
 * its own name (`timings-node-20.txt`, `timings-partial.txt`), so runs side by side do not write
 * one file.
 */
const partial = args.length > 0;
const runName = args[0] === '--set' ? args[1] : 'partial';

/**
 * PIER_TEST_TREE=built: the tree was compiled from this checkout by a run that may still be going,
 * and is used as it is. .ci/run's last two passes run side by side after the whole suite has
 * compiled it; compiling and linking it again there would rewrite files the other pass is loading.
 */
const treeBuilt = process.env.PIER_TEST_TREE === 'built';
if (treeBuilt && !existsSync(path.join(buildRoot, 'bin/pier-sources.js'))) {
  process.stderr.write(`PIER_TEST_TREE=built, but ${buildRoot} has no compiled tree: run npm test first.\n`);
  process.exit(1);
}
if (!treeBuilt && !buildTestTree()) {
  process.stderr.write('The sources do not compile: tsc reported the errors above.\n');
  process.exit(1);
}

/** PIER_TEST_PG_PORT, else a port nobody listens on, so two checkouts can test at once. */
async function embeddedPort(): Promise<number> {
  if (process.env.PIER_TEST_PG_PORT) return Number(process.env.PIER_TEST_PG_PORT);
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let adminUrl = process.env.DATABASE_URL;
let stopEmbedded: (() => Promise<void>) | undefined;
if (!adminUrl) {
  const embedded = await startEmbeddedPostgres(path.join(root, '.test-pg'), {
    port: await embeddedPort(),
    database: 'postgres',
  });
  adminUrl = embedded.url;
  stopEmbedded = embedded.stop;
}

process.env.PIER_TEST_ADMIN_URL = adminUrl;
// Migrated once here; each test file's migrated database is a copy (test/helpers/database.ts).
const template = await createMigratedTemplate();

const tapRun = path.join(root, 'node_modules/tap/dist/esm/run.mjs');

/**
 * tap rebuilds itself for the plugins package.json names (without @tapjs/typescript) only when
 * asked or on its runner's first run; `npm ci` brings the default build back. The test files
 * import that build, so it is made first when stale, as the runner would.
 */
function tapBuildIsStale(): boolean {
  const built = readFileSync(
    path.join(root, 'node_modules/@tapjs/test/test-built/dist/esm/index.js'),
    'utf8',
  );
  return /^@tapjs\/typescript$/m.test(built.slice(built.indexOf('export const signature')));
}
if (tapBuildIsStale()) spawnSync(process.execPath, [tapRun, 'build'], { cwd: root, stdio: 'ignore' });

/**
 * Files run this many at a time (PIER_TEST_JOBS to change): most of a test file's time is spent
 * waiting on PostgreSQL, child processes, browsers and retry timers, so three run well even on
 * two cores (a quiet 2-core run: tap 549 s with two, 476 s with three, every test passing).
 */
const jobs = Number(process.env.PIER_TEST_JOBS) || Math.max(3, availableParallelism());
/**
 * Beyond those, more files start one at a time while the cores sit idle (runner.ts), up to this
 * many (PIER_TEST_MAX_JOBS to change; PIER_TEST_JOBS alone keeps the number fixed): with three at
 * a time the files' own CPU filled 68 % of two cores over a whole run (2,226 s in 27 min 18 s,
 * PostgreSQL's not counted).
 */
const maxJobs =
  Number(process.env.PIER_TEST_MAX_JOBS) ||
  (process.env.PIER_TEST_JOBS ? jobs : jobs + availableParallelism());

/**
 * The files that take longest (one to three minutes on a quiet 2-core machine; 14–113 s of CPU each
 * in the timing report, where most files take 2–8) start first, so that the suite does not end
 * with one of them running alone; the rest follow longest first by the last run's timing report
 * where there is one (a clean clone has none: path order). They are also the heaviest (browsers,
 * pier processes, JVMs, PostgreSQL nodes), and no more than two of them run at once (runner.ts):
 * three together took 230–310 s each where one alone takes 70, and the browser pages' file ran
 * out its five minutes.
 */
const longestFirst = [
  'test/cluster/as2-kill9.test.ts',
  'test/cluster/pier-database-failover.test.ts',
  'test/ui/every-page-light.test.ts',
  'test/release.test.ts',
  'test/ui/every-page-dark.test.ts',
  'test/ui/task-onboard-partner.test.ts',
  'test/api/messages-send-json-stream.test.ts',
  'test/as2/bouncycastle-smime-from-sender.test.ts',
  'test/as2/bouncycastle-smime-to-receiver.test.ts',
  'test/ui/browser.test.ts',
  'test/cluster/database-failover.test.ts',
];
/**
 * The lint (test/lint.test.ts: eslint and prettier, about a minute of CPU) starts with them: it
 * needs no compile of its own, and beside the others it takes the cores they leave idle instead
 * of a minute before any test starts, as `npm run lint && …` did.
 */
const startFirst = ['test/lint.test.ts', ...longestFirst];
const rank = (file: string) => {
  const at = startFirst.indexOf(file);
  return at < 0 ? startFirst.length : at;
};
/** The timing report every run writes (test/timings.ts); the last run's orders this one's files. */
const timingsFile = path.join(root, '.test-output/timings.txt');
const earlier = earlierTimings(timingsFile);
const ordered = [...files].sort((a, b) => rank(a) - rank(b) || (earlier.get(b) ?? 0) - (earlier.get(a) ?? 0));

/** The report names each file by its source. */
const sourceOf = (timing: FileTiming): FileTiming => ({
  ...timing,
  file: timing.file.replace(/\.js$/, '.ts'),
});
const ownTimings = (name: string) =>
  path.join(root, `.test-output/${name}${partial ? `-${runName}` : ''}.txt`);
const logTiming = timingLog(ownTimings('timings-so-far'));

const started = Date.now();
const { passed, timings, failures } = await runTestFiles(
  // Each test file as compiled into the tree (build-tree.ts).
  ordered.map((file) => file.replace(/\.ts$/, '.js')),
  {
    cwd: buildRoot,
    jobs,
    maxJobs,
    heavy: new Set(longestFirst.map((file) => file.replace(/\.ts$/, '.js'))),
    timeoutSeconds: Number(process.env.PIER_TEST_TIMEOUT) || 300,
    env: {
      ...process.env,
      [templateVariable]: template.name,
      // Node 22.1 and later keep the code they compile here and load it from here next time: the
      // files' processes (and the pier processes they start) load the same few thousand modules,
      // a second of CPU each on these machines before a test runs. Node 20 ignores it.
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(root, '.test-output/compile-cache'),
    },
    onTiming: (timing) => logTiming(sourceOf(timing)),
  },
);
// After the totals line; a partial run (files named) does not replace the whole suite's report.
const report = timingReport(timings.map(sourceOf), {
  wallMs: Date.now() - started,
  jobs,
  maxJobs,
  cores: availableParallelism(),
});
const reportFile = ownTimings('timings');
const top = writeTimingReport(reportFile, report);
process.stdout.write(`\n${top}\n(every file: ${path.relative(root, reportFile)})\n`);
if (failures.length > 0) process.stdout.write(`\n${failures.join('\n')}\n`);
await template.drop();
await stopEmbedded?.();
process.exit(passed ? 0 : 1);
