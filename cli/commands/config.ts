/**
 * `pier config export|plan|apply` (docs/configuration-files.md): the install's configuration as
 * a file, and a file's changes shown or made, with the API's rules and audit. Secret references
 * (`${env:NAME}`) are read from this shell's environment.
 */
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import type { PlannedChange } from '../../api/config-files/plan.js';
import { wholeNumber } from '../args.js';
import { environment, withEnvironment } from '../env-help.js';
import { cliIo, say } from '../io.js';
import { cliCaller, withSession } from '../session.js';

type Changes = PlannedChange[];

/** One line per record, then one per field: `~ partners acme` / `    as2.endpoint: old → new`. */
function printChanges(changes: Changes): void {
  if (changes.length === 0) {
    say('No changes.');
    return;
  }
  const mark = { create: '+', update: '~', delete: '-' } as const;
  for (const change of changes) {
    say(`${mark[change.action]} ${change.section} ${change.name}`);
    if (change.action === 'delete') continue;
    for (const field of change.changes) {
      if (field.secret) say(`    ${field.field}: (secret changes)`);
      else if (change.action === 'create') say(`    ${field.field}: ${JSON.stringify(field.new)}`);
      else say(`    ${field.field}: ${JSON.stringify(field.old)} → ${JSON.stringify(field.new)}`);
    }
  }
  const count = (action: string) => changes.filter((c) => c.action === action).length;
  say(`${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`);
}

async function readDocument(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

/** A refused file: every problem on a line of its own, by its path in the file. */
async function refusingProblems<T>(work: () => Promise<T>): Promise<T> {
  const { ConfigProblems } = await import('../../api/config-files/names.js');
  const { PruneUnconfirmed } = await import('../../api/config-files/prune-guard.js');
  try {
    return await work();
  } catch (error) {
    if (error instanceof PruneUnconfirmed) {
      throw new Error(`${error.message}. To delete them, run again with --confirm-prune ${error.deletes}`);
    }
    if (!(error instanceof ConfigProblems)) throw error;
    for (const [path, problem] of Object.entries(error.problems)) cliIo().err(`${path}: ${problem}\n`);
    throw new Error(`${error.message}; nothing was applied`);
  }
}

export function configCommands(): Command {
  const config = new Command('config').description(
    "Export, plan and apply the install's configuration as a file (docs/configuration-files.md)",
  );
  withEnvironment(
    config
      .command('export')
      .description('Print the configuration as YAML; secrets as ${env:NAME} references')
      .option('--partner <name...>', 'only these partners, the certificates they name and their routes')
      .option('--seal-keys', "private keys sealed with this install's secret key instead of `stored`")
      .action((opts: { partner?: string[]; sealKeys?: boolean }) =>
        withSession(async (ctx) => {
          const { exportConfig, configYaml } = await import('../../api/config-files/service.js');
          cliIo().out(
            configYaml(await exportConfig(ctx, { partners: opts.partner, sealKeys: opts.sealKeys })),
          );
        }),
      ),
    environment.session,
  );
  withEnvironment(
    config
      .command('plan <file>')
      .description('Show what applying the file would change, field by field; changes nothing')
      .option('--prune', 'also show what the file does not name, which apply --prune deletes')
      .action((file: string, opts: { prune?: boolean }) =>
        withSession(async (ctx) => {
          const { planConfig } = await import('../../api/config-files/service.js');
          const text = await readDocument(file);
          const options = { prune: opts.prune === true, env: cliIo().env };
          printChanges(await refusingProblems(() => planConfig(ctx, cliCaller, text, options)));
        }),
      ),
    environment.session,
  );
  withEnvironment(
    config
      .command('apply <file>')
      .description('Make the install what the file says, in one transaction; audited under your login')
      .option('--prune', 'delete what the file does not name')
      .option(
        '--confirm-prune <count>',
        "with --prune: the number of records it deletes (plan --prune shows it); needed when that is more than half of the install's records",
        wholeNumber,
      )
      .action((file: string, opts: { prune?: boolean; confirmPrune?: number }) =>
        withSession(async (ctx) => {
          const { applyConfig } = await import('../../api/config-files/service.js');
          const text = await readDocument(file);
          const options = { prune: opts.prune === true, confirmDelete: opts.confirmPrune, env: cliIo().env };
          const outcome = await refusingProblems(() => applyConfig(ctx, cliCaller, text, options));
          printChanges(outcome.changes);
          for (const d of outcome.directories) {
            if (d.outcome === 'made') say(`Directory ${d.path} (${d.instance} ${d.field}): made`);
            if (d.outcome === 'failed')
              say(`Directory ${d.path} (${d.instance} ${d.field}): not made, ${d.error}`);
          }
          for (const instance of outcome.instances) {
            const why = instance.error ? `: ${instance.error}` : '';
            say(`Instance ${instance.type}/${instance.name}: ${instance.outcome}${why}`);
          }
        }),
      ),
    environment.session,
  );
  return config;
}
