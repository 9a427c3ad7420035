/** One plugin instance as the supervisor keeps it: its status by the lifecycle table, its thread, the name its claims are held under. */
import type { PluginType } from '../../actors/index.js';
import type { InstanceConfig } from '../../actors/shared/definition.js';
import type { ActorThread } from '../../protocol/actor-thread.js';
import { actionsIn, transition, type Action, type ServiceStatus, type Trigger } from '../lifecycle/states.js';
import { ActionRefused } from './errors.js';

export interface ServiceView {
  type: string;
  name: string;
  status: ServiceStatus;
  error: string | null;
  controllable: boolean;
  state_since: string;
  actions: Action[];
  /** Running with a configuration saved since it started: a restart applies the change. */
  restart_needed: boolean;
}

export class ManagedInstance {
  status: ServiceStatus = 'stopped';
  since: Date;
  error: string | null = null;
  thread: ActorThread | undefined;
  config: InstanceConfig | undefined;
  /** When the configuration it runs with was saved. */
  version: string | undefined;
  /**
   * The application_name of the database connections a target's or a source's thread runs the
   * flow's commands on (flow/actor-commands.ts): what it holds is found by that name.
   */
  flowName: string | undefined;

  constructor(
    readonly type: PluginType,
    readonly name: string,
    private readonly now: () => Date,
  ) {
    this.since = now();
  }

  get key(): string {
    return `${this.type}:${this.name}`;
  }

  /** Moves by the table; an operator action without a row is refused (409). */
  apply(trigger: Trigger): void {
    const next = transition(this.status, trigger);
    if (!next) {
      if (trigger === 'start' || trigger === 'stop' || trigger === 'restart') {
        throw new ActionRefused(trigger, this.status, actionsIn(this.status));
      }
      throw new Error(`Lifecycle has no move ${this.status} --${trigger}-->`);
    }
    if (next !== this.status) this.since = this.now();
    this.status = next;
  }

  view(restartNeeded = false): ServiceView {
    return {
      type: this.type,
      name: this.name,
      status: this.status,
      error: this.status === 'error' ? this.error : null,
      controllable: true,
      state_since: this.since.toISOString(),
      actions: actionsIn(this.status),
      restart_needed: restartNeeded,
    };
  }
}
