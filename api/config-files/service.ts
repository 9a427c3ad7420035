/**
 * Export, plan and apply of configuration files (docs/configuration-files.md). A plan is an
 * apply in a transaction that is rolled back, so the plan shows exactly what the apply would
 * do; an apply commits all of it or, on any problem, nothing. Instances whose configuration
 * changed follow once the transaction has committed, as after the API's own saves.
 */
import { stringify } from 'yaml';
import type { PluginType } from '../../actors/index.js';
import { recordServiceAction } from '../../runtime/index.js';
import { PluginConfigSchema } from '../../storage/entities/plugin-config.js';
import type { Caller } from '../auth/caller.js';
import { freshEm, type ApiContext } from '../context.js';
import { followCreated, followDeleted, followUpdated } from '../resources/plugin-configs/instance-state.js';
import type { ConfigFile } from '../schemas/config-file.js';
import { applyRun } from './apply-context.js';
import { applyCertificates, pruneCertificates } from './apply-certificates.js';
import {
  applyInstances,
  applyRoutes,
  applySettings,
  pruneInstances,
  pruneRoutes,
} from './apply-instances.js';
import { applyPartiesAndProfiles, pruneParties } from './apply-parties.js';
import { makeInstanceDirectories, type DirectoryOutcome } from './instance-directories.js';
import { ConfigProblems } from './names.js';
import { parseConfigText } from './parse.js';
import { planChanges, type PlannedChange } from './plan.js';
import { checkPrune } from './prune-guard.js';
import { readInstall, type ExportOptions } from './read-install.js';

export async function exportConfig(ctx: ApiContext, options: ExportOptions = {}): Promise<ConfigFile> {
  return (await readInstall(ctx, freshEm(ctx), options)).file;
}

/** The file as YAML, the form operators keep in version control. */
export function configYaml(file: ConfigFile): string {
  return stringify(file, { lineWidth: 0, aliasDuplicateObjects: false });
}

export interface ApplyOptions {
  prune: boolean;
  /** With prune, on apply: the number of records it deletes, needed when that is more than half. */
  confirmDelete?: number;
  /** Where `${env:NAME}` references are read. */
  env: NodeJS.ProcessEnv;
}

export interface InstanceFollowUp {
  type: PluginType;
  name: string;
  /** running, stopped…, deleted, restarted (status), restart requested (from the CLI), unchanged */
  outcome: string;
  /** Why it is not running, when it failed to start (the supervisor's reason). */
  error: string | null;
}

export interface ApplyOutcome {
  applied: boolean;
  changes: PlannedChange[];
  /** The local directories the file's instances name, made when missing before they start. */
  directories: DirectoryOutcome[];
  instances: InstanceFollowUp[];
}

class RollBack extends Error {}

async function run(
  ctx: ApiContext,
  caller: Caller,
  text: string,
  options: ApplyOptions,
  commit: boolean,
): Promise<PlannedChange[]> {
  const file = parseConfigText(text);
  let changes: PlannedChange[] = [];
  try {
    await freshEm(ctx).transactional(async (tx) => {
      const apply = applyRun(ctx, tx, caller, options.env, options.prune);
      const before = await readInstall(ctx, apply.em());
      if (options.prune) await pruneRoutes(apply, file);
      await applySettings(apply, file);
      const certificates = await applyCertificates(apply, file);
      await applyPartiesAndProfiles(apply, file, certificates);
      await applyInstances(apply, file, certificates);
      await applyRoutes(apply, file);
      if (options.prune) {
        await pruneInstances(apply, file);
        await pruneParties(apply, file);
        await pruneCertificates(apply, file);
      }
      if (Object.keys(apply.problems).length > 0) throw new ConfigProblems(apply.problems);
      changes = planChanges(before, await readInstall(ctx, apply.em()));
      if (!commit) throw new RollBack();
      // Only an apply deletes: a plan shows the deletions, and their number, to confirm with.
      if (options.prune) checkPrune(before, changes, options.confirmDelete);
    });
  } catch (error) {
    if (!(error instanceof RollBack)) throw error;
  }
  return changes;
}

export async function planConfig(
  ctx: ApiContext,
  caller: Caller,
  text: string,
  options: ApplyOptions,
): Promise<PlannedChange[]> {
  return run(ctx, caller, text, options, false);
}

/** After the commit: each changed instance follows, a running one restarted by the supervisor. */
async function followInstances(ctx: ApiContext, changes: PlannedChange[]): Promise<InstanceFollowUp[]> {
  const out: InstanceFollowUp[] = [];
  for (const change of changes) {
    if (change.section !== 'instances') continue;
    const typeField = change.changes.find((c) => c.field === 'type');
    const type = (typeField?.new ?? typeField?.old) as PluginType | undefined;
    const known = type ?? (await instanceType(ctx, change.name));
    if (!known && change.action !== 'delete') continue;
    if (change.action === 'create') {
      const view = await followCreated(ctx, known!, change.name);
      out.push({
        type: known!,
        name: change.name,
        outcome: view ? view.status : 'created',
        error: view?.error ?? null,
      });
    } else if (change.action === 'delete') {
      if (known) await followDeleted(ctx, known, change.name);
      out.push({ type: known ?? ('' as PluginType), name: change.name, outcome: 'deleted', error: null });
    } else {
      const needed = await followUpdated(ctx, known!, change.name);
      if (!needed) out.push({ type: known!, name: change.name, outcome: 'unchanged', error: null });
      else if (ctx.runtime) {
        const view = await ctx.runtime.supervisor.act(known!, change.name, 'restart');
        out.push({
          type: known!,
          name: change.name,
          outcome: `restarted (${view.status})`,
          error: view.error,
        });
      } else {
        // No supervisor here (the CLI): the restart is recorded as the instance's latest action,
        // which the supervisor of every running process follows.
        await recordServiceAction(freshEm(ctx), known!, change.name, 'restart');
        out.push({ type: known!, name: change.name, outcome: 'restart requested', error: null });
      }
    }
  }
  return out;
}

async function instanceType(ctx: ApiContext, name: string): Promise<PluginType | undefined> {
  return ((await freshEm(ctx).findOne(PluginConfigSchema, { name }))?.type ?? undefined) as
    PluginType | undefined;
}

export async function applyConfig(
  ctx: ApiContext,
  caller: Caller,
  text: string,
  options: ApplyOptions,
): Promise<ApplyOutcome> {
  const changes = await run(ctx, caller, text, options, true);
  // Before the instances start: a poller whose directory is missing would fail at once.
  const directories = await makeInstanceDirectories(parseConfigText(text));
  return { applied: true, changes, directories, instances: await followInstances(ctx, changes) };
}
