/** Why the supervisor refused or failed an action; the API maps each to its answer (docs/api/lifecycles.md#service-instance-status). */
import type { Action, ServiceStatus } from '../lifecycle/states.js';

export class UnknownInstance extends Error {
  constructor(
    readonly type: string,
    readonly instanceName: string,
  ) {
    super(`No plugin instance ${type}/${instanceName} is run by this process`);
    this.name = 'UnknownInstance';
  }
}

/** The lifecycle table has no such move from the current status (or the instance is busy). */
export class ActionRefused extends Error {
  constructor(
    readonly action: Action,
    readonly status: ServiceStatus,
    readonly allowed: Action[],
  ) {
    super(`Cannot ${action} an instance that is ${status}`);
    this.name = 'ActionRefused';
  }
}

export class StartFailed extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'StartFailed';
  }
}

/** A question for an instance that is not running in this process (or whose thread ended meanwhile). */
export class InstanceNotRunning extends Error {
  constructor(
    readonly type: string,
    readonly instanceName: string,
  ) {
    super(`The ${type} ${instanceName} is not running`);
    this.name = 'InstanceNotRunning';
  }
}

/** A running instance did not answer a question within its deadline; its thread was ended. */
export class InstanceUnresponsive extends Error {
  constructor(
    readonly type: string,
    readonly instanceName: string,
    readonly reason: string,
  ) {
    super(`The ${type} ${instanceName} ${reason}`);
    this.name = 'InstanceUnresponsive';
  }
}
