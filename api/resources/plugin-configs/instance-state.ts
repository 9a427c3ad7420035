/**
 * What a saved configuration does to its instance (docs/decisions/plugin-instances-follow-their-configuration.md):
 * a configuration created enabled starts at once, a deleted one stops and leaves /services,
 * a changed one keeps running as it was and says that a restart applies the change. Every
 * other process is told and follows (runtime/supervisor/desired-state.ts).
 */
import type { PluginType } from '../../../actors/index.js';
import { announceInstanceChange, processStates, type ServiceView } from '../../../runtime/index.js';
import { freshEm, type ApiContext } from '../../context.js';

/** This process follows the change (when it runs instances) and tells the others. */
async function follow(ctx: ApiContext, type: PluginType, name: string): Promise<ServiceView | undefined> {
  const supervisor = ctx.runtime?.supervisor;
  if (supervisor) return supervisor.changed(type, name);
  await announceInstanceChange(freshEm(ctx), type, name);
  return undefined;
}

/** After a create: the instance as this process now has it, or null when it does not run the type. */
export async function followCreated(
  ctx: ApiContext,
  type: PluginType,
  name: string,
): Promise<ServiceView | null> {
  return (await follow(ctx, type, name)) ?? null;
}

/** After an update: true when an instance runs with the configuration as it was before. */
export async function followUpdated(ctx: ApiContext, type: PluginType, name: string): Promise<boolean> {
  const here = await follow(ctx, type, name);
  if (here) return here.restart_needed;
  // Not run here: any process running it started before this change.
  const states = (await processStates(freshEm(ctx))).get(`${type}:${name}`) ?? [];
  return states.some((s) => s.status === 'running');
}

export async function followDeleted(ctx: ApiContext, type: PluginType, name: string): Promise<void> {
  await follow(ctx, type, name);
}
