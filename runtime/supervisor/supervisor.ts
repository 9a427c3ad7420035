/**
 * The supervisor: one worker thread per plugin instance, started and stopped by the
 * lifecycle table (docs/api/lifecycles.md#service-instance-status). Actions wait for completion. A failed start or a crash puts
 * the instance in `error`, raises `plugin_failed`, and gives back the deliveries it held;
 * nothing a thread does can take the process or another instance down.
 *
 * Operators' actions hold across processes and restarts (desired-state.ts): an action is kept
 * with the configuration and every process follows it, as it follows configurations created,
 * changed and deleted (`reconcile`, on a notification and every few seconds).
 *
 * Work on instances takes turns per instance (turns.ts), and every step is bounded by the
 * child spec's deadlines: one instance's start, stop or question holds up nothing else.
 */
import type { MetricsBatch } from '../../protocol/metrics/batch.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { MessageChannel } from 'node:worker_threads';
import { pluginTypeDefinitions, type PluginRole, type PluginType } from '../../actors/index.js';
import type { OutageLog } from '../../storage/outage-log.js';
import { raiseAlert } from '../../flow/alerts/alerts.js';
import { ActorThread, duration, StartFailure } from '../../protocol/actor-thread.js';
import { isAs2Request } from '../../protocol/as2-protocol.js';
import { ChannelError, channelErrors } from '../../protocol/envelope.js';
import { parseHostAnswer, type HostAnswerTo, type HostRequest } from '../../protocol/host-protocol.js';
import { actionsIn } from '../lifecycle/states.js';
import { ActorEvent, CoreRequest, type CoreResponse } from '../../protocol/core-protocol.js';
import type { Action, ServiceStatus } from '../lifecycle/states.js';
import { actorLogLevel, type ActorStartData } from '../../protocol/worker-host/start-data.js';
import { startOrder } from './child-spec.js';
import { portHolder } from './port-holder.js';
import type { ActorCore, InstanceRef } from './core-port.js';
import {
  announce,
  processStates,
  readDesired,
  readVersion,
  recordAction,
  reportStates,
  wantsRunning,
  type DesiredInstance,
  type ProcessState,
} from './desired-state.js';
import {
  ActionRefused,
  InstanceNotRunning,
  InstanceUnresponsive,
  StartFailed,
  UnknownInstance,
} from './errors.js';
import { openInstanceCertificates } from './instance-certificates.js';
import { runOnce, type RunOnceDeps } from './run-once.js';
import { loadInstanceConfig } from './instance-config.js';
import { ManagedInstance, type ServiceView } from './instance.js';
import { Turns } from './turns.js';
import { alertLinks } from '../../flow/alerts/links.js';
import { limits } from '../../limits/limits.js';

/** What a worker run once takes (without the register of threads, which the supervisor keeps), and more. */
export interface SupervisorDeps extends Omit<RunOnceDeps, 'threads'> {
  core: ActorCore;
  /** This process's node number, under which it reports its instances' states (none: not reported). */
  node?: number;
  /**
   * The database targets and sources run the flow's commands on, on connections of their own
   * (flow/actor-commands.ts); with `node`, they are given it. Without both a target or a source
   * cannot start (actors/shared/delivery-port.ts, acceptance-port.ts).
   */
  flowDatabaseUrl?: string;
  /** A test's clock (protocol/clock.ts), given to every thread; absent, threads read the real clock. */
  clock?: SharedArrayBuffer;
  /** Tells a database outage once for the process, whoever saw it (storage/outage-log.ts). */
  outage?: OutageLog;
  /** An instance (`type:name`) found the payload store failing, or working again. */
  onStorage?: (instance: string, ok: boolean, problem?: string) => Promise<void>;
  /** The process's registry, which adds what each actor thread counted. */
  metrics?: {
    /** False: actor threads are told to count nothing (METRICS_PORT=off). */
    readonly counting: boolean;
    apply(batch: MetricsBatch, thread: string): void;
    threadEnded(thread: string): void;
  };
  /** A target's partner failed an attempt as an unreachable one does, or took one (partner-alerts.ts). */
  onReach?: (instance: InstanceRef, ok: boolean, partner?: string, error?: string) => void;
  /** An SFTP instance's server presented a host key other than the pinned one (host-key-alerts.ts). */
  onHostKeyChanged?: (instance: InstanceRef, server: string, presented: string, pinned: string) => void;
}

/** An instance as /services shows it: this process's view, what is wanted, and every process's state. */
export interface ServiceListing extends ServiceView {
  desired: 'running' | 'stopped';
  processes: ProcessState[];
}

export class Supervisor {
  readonly #deps: SupervisorDeps;
  readonly #instances = new Map<string, ManagedInstance>();
  /** The action number applied here, by `type:name`; an instance not in it is new to this process. */
  readonly #applied = new Map<string, number>();
  /** When each configuration was last saved, as last read. */
  readonly #versions = new Map<string, string>();
  /** Actions, starts and follows of one instance run one at a time, so two never move it at once. */
  readonly #turns = new Turns();
  /** Every actor thread spawned that has not ended, those left behind by a deadline included. */
  readonly #threads = new Set<ActorThread>();
  /** The reconcile under way, and whether another was asked for meanwhile. */
  #reconciling: Promise<void> | undefined;
  #again = false;
  /** Numbers the threads that get connections of their own, for their names. */
  #threadNumber = 0;
  #reports: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #closing = false;

  constructor(deps: SupervisorDeps) {
    this.#deps = deps;
  }

  /** True for types whose instances this process can run. */
  runs(type: PluginType): boolean {
    return this.#deps.entries[type] !== undefined;
  }

  /**
   * Starts every instance that is wanted running (enabled, or started by the last action),
   * targets before sources. Failures leave `error` and an alert.
   */
  async startAll(): Promise<void> {
    const stored = await readDesired(this.#em());
    for (const item of stored) this.#note(item);
    const wanted = stored.filter((i) => wantsRunning(i) && this.runs(i.type));
    // The instances of one role start side by side: one that hangs delays the rest, and the
    // server's start, by its start deadline at most.
    for (const role of rolesInOrder(1)) {
      await Promise.all(
        wanted
          .filter((i) => pluginTypeDefinitions[i.type].role === role)
          .map((i) => {
            const instance = this.#entry(i.type, i.name);
            return this.#turns.run(instance.key, () => this.#start(instance).catch(() => {}));
          }),
      );
    }
    this.#report();
  }

  /** Threads that did not end when terminated: the process cannot end by itself while any is left. */
  get unendedThreads(): number {
    return this.#threads.size;
  }

  /** Follows other processes' actions and configuration changes: now and then, and when told. */
  follow(listen: (channel: string, handler: () => void) => void, channel: string): void {
    listen(channel, () => void this.reconcile());
    this.#timer = setInterval(() => void this.reconcile(), limits.reconcileEveryMs);
    this.#timer.unref();
  }

  /**
   * A configuration was created, changed or deleted here: this process follows it at once,
   * and every other process is told.
   */
  async changed(type: PluginType, name: string): Promise<ServiceView | undefined> {
    await announce(this.#em(), type, name);
    const key = `${type}:${name}`;
    // This instance alone: another's start under way is not waited for.
    await this.#turns
      .run(key, async () => {
        const stored = await readDesired(this.#em());
        await this.#followKey(
          key,
          stored.find((d) => d.type === type && d.name === name),
        );
      })
      .catch((error: unknown) => {
        this.#deps.logger.error({ err: error, instance: key }, 'could not follow the stored service action');
      });
    this.#report();
    const instance = this.#instances.get(key);
    return instance ? this.#view(instance) : undefined;
  }

  /**
   * Brings this process in line with the stored configurations and actions: new instances
   * wanted running start, deleted ones stop and go, actions not applied here yet are.
   */
  reconcile(): Promise<void> {
    if (this.#closing) return Promise.resolve();
    // One at a time; asks that come meanwhile are answered by one more round after it.
    if (this.#reconciling) {
      this.#again = true;
      return this.#reconciling;
    }
    const rounds = async () => {
      do {
        this.#again = false;
        await this.#reconcileOnce();
      } while (this.#again && !this.#closing);
    };
    this.#reconciling = rounds().finally(() => (this.#reconciling = undefined));
    return this.#reconciling;
  }

  async #reconcileOnce(): Promise<void> {
    try {
      const stored = await readDesired(this.#em());
      const byKey = new Map(stored.map((d) => [`${d.type}:${d.name}`, d]));
      const keys = new Set([...this.#instances.keys(), ...byKey.keys()]);
      // Each instance in its own turn, side by side: one whose start hangs holds up only itself.
      await Promise.all(
        [...keys].map((key) =>
          this.#turns
            .run(key, () => this.#followKey(key, byKey.get(key)))
            .catch((error: unknown) => {
              this.#deps.logger.error(
                { err: error, instance: key },
                'could not follow the stored service action',
              );
            }),
        ),
      );
    } catch (error) {
      if (this.#deps.outage) this.#deps.outage.failed('following the stored service actions', error);
      else this.#deps.logger.error({ err: error }, 'could not follow the stored service actions');
    }
    this.#report();
  }

  /** One instance in line with its stored configuration and action (none: deleted); in its turn. */
  async #followKey(key: string, item: DesiredInstance | undefined): Promise<void> {
    if (this.#closing) return;
    if (!item) {
      const instance = this.#instances.get(key);
      if (!instance) return;
      if (instance.status === 'running') await this.#stop(instance).catch(() => {});
      this.#instances.delete(key);
      this.#applied.delete(key);
      this.#versions.delete(key);
      return;
    }
    if (this.runs(item.type)) await this.#follow(item);
  }

  async #follow(item: DesiredInstance): Promise<void> {
    const key = `${item.type}:${item.name}`;
    const applied = this.#applied.get(key);
    this.#note(item);
    if (applied === undefined) {
      // Created since this process last looked: listed at once, started when wanted.
      const instance = this.#entry(item.type, item.name);
      if (wantsRunning(item) && instance.status === 'stopped') await this.#start(instance).catch(() => {});
      return;
    }
    if (item.seq <= applied || item.action === null) return;
    const instance = this.#entry(item.type, item.name);
    const can = actionsIn(instance.status);
    if (item.action === 'restart' && instance.status === 'stopped') {
      await this.#start(instance).catch(() => {});
    } else if (can.includes(item.action)) {
      await this.#perform(instance, item.action).catch(() => {});
    }
  }

  /** Remembers the stored action number and version of a configuration as read. */
  #note(item: DesiredInstance): void {
    const key = `${item.type}:${item.name}`;
    this.#applied.set(key, Math.max(item.seq, this.#applied.get(key) ?? 0));
    this.#versions.set(key, item.version);
  }

  /** Writes this process's states for /services; in order, and never failing the caller. */
  #report(): void {
    const node = this.#deps.node;
    if (node === undefined) return;
    this.#reports = this.#reports.then(async () => {
      const states = [...this.#instances.values()].map((i) => {
        const v = this.#view(i);
        return {
          type: v.type,
          name: v.name,
          status: v.status,
          error: v.error,
          state_since: v.state_since,
          restart_needed: v.restart_needed,
        };
      });
      await reportStates(this.#em(), node, states).catch((error: unknown) => {
        if (this.#deps.outage) return this.#deps.outage.failed('reporting the instance states', error);
        this.#deps.logger.warn({ err: error }, 'could not report the instance states');
      });
    });
  }

  #view(instance: ManagedInstance): ServiceView {
    const stored = this.#versions.get(instance.key);
    const restartNeeded =
      instance.status === 'running' &&
      instance.version !== undefined &&
      stored !== undefined &&
      stored !== instance.version;
    return instance.view(restartNeeded);
  }

  /**
   * Stops every instance, sources first, each within its shutdown time. Work under way ends
   * first, each step within its deadline; threads that do not end are left behind and logged.
   */
  async stopAll(deadlineMs?: number): Promise<void> {
    this.#closing = true;
    clearInterval(this.#timer);
    // A process's stop (PIER_SHUTDOWN_TIMEOUT) bounds the whole of it, every role together;
    // without one, each instance has its own shutdown time.
    const until = deadlineMs === undefined ? undefined : Date.now() + deadlineMs;
    const timeLeft = () =>
      until === undefined
        ? this.#deps.childSpec.shutdownTimeoutMs
        : Math.max(until - Date.now(), limits.minimumRoleStopMs);
    await this.#turns.settled();
    for (const role of rolesInOrder(-1)) {
      await Promise.all(
        [...this.#instances.values()]
          .filter((i) => i.status === 'running' && pluginTypeDefinitions[i.type].role === role)
          .map((i) => this.#turns.run(i.key, () => this.#stop(i, timeLeft()).catch(() => {}))),
      );
    }
    // Threads of starts that missed their deadline, or that did not end when first terminated.
    await Promise.all([...this.#threads].map((thread) => thread.terminate()));
    if (this.#threads.size > 0) {
      this.#deps.logger.error(
        { threads: this.#threads.size },
        'actor threads could not be ended; the process cannot end by itself',
      );
    }
    await this.#reports;
    if (this.#deps.node !== undefined) await reportStates(this.#em(), this.#deps.node, []).catch(() => {});
  }

  /**
   * Every instance this process runs or could start (its configured ones of types it runs),
   * with what is wanted of it and the state each live process reports.
   */
  async list(): Promise<ServiceListing[]> {
    const em = this.#em();
    const [stored, states] = await Promise.all([readDesired(em), processStates(em)]);
    const byKey = new Map(stored.map((d) => [`${d.type}:${d.name}`, d]));
    for (const item of stored) {
      if (!this.runs(item.type)) continue;
      this.#versions.set(`${item.type}:${item.name}`, item.version);
      this.#entry(item.type, item.name);
    }
    // An instance whose configuration was deleted stays listed while it runs.
    for (const [key, instance] of this.#instances) {
      if (!byKey.has(key) && instance.status === 'stopped') this.#instances.delete(key);
    }
    return [...this.#instances.values()]
      .sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name))
      .map((i) => {
        const item = byKey.get(i.key);
        return {
          ...this.#view(i),
          desired: item && wantsRunning(item) ? 'running' : 'stopped',
          processes: states.get(i.key) ?? [],
        };
      });
  }

  /** Every instance this process knows and its status here, without reading the database (metrics). */
  states(): { type: PluginType; name: string; status: ServiceStatus }[] {
    return [...this.#instances.values()].map((i) => ({ type: i.type, name: i.name, status: i.status }));
  }

  /** The instance's status in this process, if it has one. */
  statusOf(type: PluginType, name: string): ServiceView | undefined {
    const instance = this.#instances.get(`${type}:${name}`);
    return instance ? this.#view(instance) : undefined;
  }

  /**
   * Asks a running instance of this process a question of the host protocol (the AS2 sender's
   * connection check); the answer is checked against the question's schema. An instance that
   * is not running, or whose thread ends before it answers, is InstanceNotRunning.
   */
  async ask<R extends HostRequest>(type: PluginType, name: string, request: R): Promise<HostAnswerTo<R>> {
    const instance = this.#instances.get(`${type}:${name}`);
    const thread = instance?.status === 'running' ? instance.thread : undefined;
    if (!instance || !thread?.alive) throw new InstanceNotRunning(type, name);
    const answer = await thread
      .request(request, this.#deps.childSpec.checkTimeoutMs)
      .catch(async (error: unknown) => {
        if (error instanceof ChannelError && error.code === channelErrors.workerExited)
          throw new InstanceNotRunning(type, name);
        if (error instanceof ChannelError && error.code === channelErrors.timedOut) {
          const reason = `did not answer a ${request.type} within ${duration(this.#deps.childSpec.checkTimeoutMs)}`;
          await this.#turns.run(instance.key, () => this.#unresponsive(instance, thread, reason));
          throw new InstanceUnresponsive(type, name, reason);
        }
        throw error;
      });
    return parseHostAnswer(request, answer);
  }

  /** A thread that stopped answering is ended, and its instance failed (error, alert). */
  async #unresponsive(instance: ManagedInstance, thread: ActorThread, reason: string): Promise<void> {
    if (instance.thread !== thread) return;
    // Ended before its claims are given back, so it cannot deliver what another then claims.
    await thread.terminate();
    await this.#crashed(instance, reason);
  }

  /**
   * Performs an operator action and waits for it to complete here (docs/api/lifecycles.md#service-instance-status). The action is
   * kept with the configuration first, so every other process follows it, and a restart too.
   */
  async act(type: PluginType, name: string, action: Action): Promise<ServiceView> {
    const instance = await this.#find(type, name);
    const refuse = () => {
      if (!actionsIn(instance.status).includes(action))
        throw new ActionRefused(action, instance.status, actionsIn(instance.status));
    };
    // An instance in a move (starting, stopping) refuses at once rather than wait its turn.
    refuse();
    try {
      await this.#turns.run(instance.key, async () => {
        refuse();
        const seq = await recordAction(this.#em(), type, name, action);
        if (seq !== undefined) this.#applied.set(instance.key, seq);
        await this.#perform(instance, action);
      });
      return this.#view(instance);
    } finally {
      this.#report();
    }
  }

  async #perform(instance: ManagedInstance, action: Action): Promise<void> {
    switch (action) {
      case 'start':
        await this.#start(instance);
        break;
      case 'stop':
        await this.#stop(instance);
        break;
      case 'restart':
        await this.#restart(instance);
        break;
      default: {
        const never: never = action;
        throw new Error(`unknown action ${String(never)}`);
      }
    }
  }

  /**
   * Runs a plugin type's worker once with the configuration as saved, outside the instances
   * (run-once.ts): `answer` gets its questions, and it is stopped when `done` settles.
   */
  runOnce(
    type: PluginType,
    name: string,
    answer: (request: CoreRequest) => Promise<CoreResponse>,
    done: Promise<unknown>,
  ): Promise<void> {
    if (this.#closing) throw new StartFailure('CLOSING', 'the process is shutting down');
    return runOnce({ ...this.#deps, threads: this.#threads }, type, name, answer, done);
  }

  /** Work is queued for the target named: tell its actor, if it runs here. */
  poke(target: string): void {
    for (const instance of this.#instances.values()) {
      if (instance.name === target && instance.status === 'running') instance.thread?.event({ type: 'work' });
    }
  }

  async #find(type: PluginType, name: string): Promise<ManagedInstance> {
    const known = this.#instances.get(`${type}:${name}`);
    if (known) return known;
    if (!this.runs(type) || !(await loadInstanceConfig(this.#em(), this.#deps.secrets, type, name))) {
      throw new UnknownInstance(type, name);
    }
    return this.#entry(type, name);
  }

  #entry(type: PluginType, name: string): ManagedInstance {
    const key = `${type}:${name}`;
    let instance = this.#instances.get(key);
    if (!instance) {
      instance = new ManagedInstance(type, name, this.#deps.now);
      this.#instances.set(key, instance);
    }
    return instance;
  }

  #em(): EntityManager {
    return this.#deps.orm.em.fork() as EntityManager;
  }

  async #restart(instance: ManagedInstance): Promise<void> {
    const wasRunning = instance.status === 'running';
    instance.apply('restart');
    if (wasRunning) {
      await this.#finishStop(instance);
      instance.apply('start');
    }
    await this.#launch(instance);
  }

  async #start(instance: ManagedInstance): Promise<void> {
    instance.apply('start');
    await this.#launch(instance);
  }

  /** From `starting`: reads the configuration as it is now and waits for the thread's ready. */
  async #launch(instance: ManagedInstance): Promise<void> {
    instance.error = null;
    const { type, name } = instance;
    try {
      if (this.#closing) throw new StartFailure('CLOSING', 'the process is shutting down');
      const entry = this.#deps.entries[type];
      if (!entry) throw new StartFailure('NOT_RUNNABLE', `${type} instances are not run by this build`);
      // The version first: a change saved in between shows as restart_needed, never hidden.
      const version = await readVersion(this.#em(), type, name);
      const config = await loadInstanceConfig(this.#em(), this.#deps.secrets, type, name);
      if (!config)
        throw new StartFailure('NO_CONFIGURATION', `the configuration of ${type}/${name} was deleted`);
      const holder = portHolder(this.#instances.values(), instance, config.settings);
      if (holder)
        throw new StartFailure(
          'PORT_IN_USE',
          `port ${String(config.settings.port)} is taken by ${holder.type} ${holder.name} of this process; ` +
            'give one of them another port',
        );
      const opened = await openInstanceCertificates(
        this.#em(),
        this.#deps.secrets,
        pluginTypeDefinitions[type],
        config.settings,
        this.#deps.now(),
      );
      for (const warning of opened.warnings) this.#log(instance).warn(warning);
      const start: ActorStartData = {
        type,
        name,
        settings: config.settings,
        secrets: config.secrets,
        certificates: opened.certificates,
        storage: this.#deps.storage,
        user_agent: this.#deps.userAgent,
        log_level: actorLogLevel(this.#deps.logger),
        metrics: this.#deps.metrics?.counting ?? false,
        ...this.#flowAccess(instance),
        ...(this.#deps.clock ? { clock: this.#deps.clock } : {}),
      };
      const thread: ActorThread = await ActorThread.start({
        entry,
        workerData: start,
        startTimeoutMs: this.#deps.childSpec.startTimeoutMs,
        endTimeoutMs: this.#deps.childSpec.endTimeoutMs,
        threads: this.#threads,
        onRequest: (body) => this.#answer(instance, body),
        onEvent: (body) => this.#onEvent(instance, body),
        onExit: (end) => {
          this.#deps.metrics?.threadEnded(instance.key);
          if (!end.expected) void this.#crashed(instance, end.reason);
        },
      });
      instance.thread = thread;
      instance.config = config;
      instance.version = version;
      instance.apply('ready');
      this.#log(instance).info('plugin instance running');
      this.#connectHandoffs(instance);
      await this.#recovered(instance);
      thread.event({ type: 'work' });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      instance.apply('fail');
      instance.error = reason;
      this.#log(instance).error({ reason }, 'plugin instance failed to start');
      // A taken port is the most common failed start of a receiver: say what to do about it.
      const hint = /EADDRINUSE/.test(reason)
        ? ': its port is taken by another program; stop that program or give this instance another port'
        : '';
      await this.#alert(instance, `${type} ${name} failed to start: ${reason}${hint}`, reason);
      throw new StartFailed(reason);
    }
  }

  async #stop(instance: ManagedInstance, timeoutMs = this.#deps.childSpec.shutdownTimeoutMs): Promise<void> {
    instance.apply('stop');
    await this.#finishStop(instance, timeoutMs);
  }

  /** From `stopping`: the actor finishes its work in hand, or its thread ends after the grace time. */
  async #finishStop(
    instance: ManagedInstance,
    timeoutMs = this.#deps.childSpec.shutdownTimeoutMs,
  ): Promise<void> {
    const clean = await instance.thread?.stop(timeoutMs);
    if (clean === false)
      this.#log(instance).warn('plugin instance did not stop in time; its thread was ended');
    if (instance.thread?.alive)
      this.#log(instance).error('plugin instance thread did not end when terminated; it is left behind');
    instance.thread = undefined;
    await this.#releaseClaims(instance, 'the instance stopped');
    if (instance.status === 'stopping') instance.apply('stopped');
    this.#log(instance).info('plugin instance stopped');
  }

  async #crashed(instance: ManagedInstance, reason: string): Promise<void> {
    if (instance.status !== 'running') return;
    instance.apply('crash');
    instance.error = reason;
    instance.thread = undefined;
    this.#log(instance).error({ reason }, 'plugin instance failed');
    await this.#releaseClaims(instance, `the instance failed: ${reason}`);
    await this.#alert(instance, `${instance.type} ${instance.name} failed: ${reason}`, reason);
    this.#report();
  }

  /**
   * Gives a source that hands documents over and each target of this process that takes them a
   * channel of their own (protocol/handoff-protocol.ts), when `started` is one of them: a target
   * started is offered to every running source, a source started gets every running target.
   * Only threads that run the flow's commands themselves: the acceptance stores a handed
   * delivery as delivered. A channel closes with either thread.
   */
  #connectHandoffs(started: ManagedInstance): void {
    if (!started.flowName || !started.thread) return;
    const side = pluginTypeDefinitions[started.type].handoff;
    if (!side) return;
    for (const other of this.#instances.values()) {
      if (other.status !== 'running' || !other.thread || !other.flowName) continue;
      const otherSide = pluginTypeDefinitions[other.type].handoff;
      if (!otherSide || otherSide === side) continue;
      const [source, target] = side === 'gives' ? [started, other] : [other, started];
      const { port1, port2 } = new MessageChannel();
      target.thread!.event({ type: 'handoff_from', source: source.name, port: port2 }, [port2]);
      source.thread!.event({ type: 'handoff_to', target: target.name, port: port1 }, [port1]);
    }
  }

  /**
   * Flow access for a target's or a source's thread, under a connection name of its own. A
   * source holds no claims: ending its connections with its thread (releaseHeldBy) rolls back
   * an acceptance under way, which its source offers again, and finds nothing to give back.
   */
  #flowAccess(instance: ManagedInstance): Pick<ActorStartData, 'flow'> {
    const { flowDatabaseUrl: url, node } = this.#deps;
    instance.flowName = undefined;
    const { role } = pluginTypeDefinitions[instance.type];
    if (!url || node === undefined || (role !== 'target' && role !== 'source')) return {};
    instance.flowName = `pier-${node}-${++this.#threadNumber}`;
    return { flow: { database_url: url, node, application_name: instance.flowName } };
  }

  /** Gives back what the instance's thread held (its connections are ended first). */
  async #releaseClaims(instance: ManagedInstance, reason: string): Promise<void> {
    const { flowName } = instance;
    if (!flowName) return;
    instance.flowName = undefined;
    await this.#deps.core.releaseHeldBy(this.#ref(instance), flowName, reason).catch((error: unknown) => {
      // The orphan sweep finds them once this process is gone; until then they wait.
      this.#log(instance).error({ err: error }, 'could not give back held deliveries');
    });
  }

  async #alert(instance: ManagedInstance, summary: string, reason: string): Promise<void> {
    try {
      await raiseAlert(
        this.#em(),
        {
          code: 'plugin_failed',
          subject_kind: 'plugin-instance',
          subject_id: instance.key,
          subject_name: instance.name,
          summary,
          details: { type: instance.type, name: instance.name, reason },
          instance: instance.key,
          link: alertLinks.instance(instance.type, instance.name),
        },
        this.#deps.now(),
      );
    } catch (error) {
      this.#log(instance).error({ err: error }, 'could not raise the plugin_failed alert');
    }
  }

  /** Ends the instance's standing plugin_failed, if one stands (raising nothing otherwise). */
  async #recovered(instance: ManagedInstance): Promise<void> {
    try {
      await raiseAlert(
        this.#em(),
        {
          code: 'plugin_recovered',
          subject_kind: 'plugin-instance',
          subject_id: instance.key,
          subject_name: instance.name,
          summary: `${instance.type} ${instance.name} is running again`,
          details: { type: instance.type, name: instance.name },
          instance: instance.key,
          link: alertLinks.instance(instance.type, instance.name),
        },
        this.#deps.now(),
      );
    } catch (error) {
      this.#log(instance).error({ err: error }, 'could not raise the plugin_recovered alert');
    }
  }

  #ref(instance: ManagedInstance): InstanceRef {
    return { type: instance.type, name: instance.name, settings: instance.config?.settings ?? {} };
  }

  /** Answers an actor's request: the AS2 actors' and the notifiers' questions. */
  async #answer(instance: ManagedInstance, body: unknown): Promise<CoreResponse> {
    const request = CoreRequest.parse(body);
    const role = pluginTypeDefinitions[instance.type].role;
    const ref = this.#ref(instance);
    switch (request.type) {
      case 'notify_claim':
      case 'notify_result':
      case 'notify_progress':
        if (role !== 'notifier' || !this.#deps.core.notify)
          throw new Error(`${instance.type} instances do not ask ${request.type}`);
        return this.#deps.core.notify(ref, request);
      default: {
        if (!isAs2Request(request) || !instance.type.startsWith('as2-') || !this.#deps.core.as2)
          throw new Error(`${instance.type} instances do not ask ${request.type}`);
        return this.#deps.core.as2(ref, request);
      }
    }
  }

  #onEvent(instance: ManagedInstance, body: unknown): void {
    const event = ActorEvent.safeParse(body);
    if (!event.success) return;
    switch (event.data.type) {
      case 'log':
        this.#log(instance)[event.data.level](event.data.fields ?? {}, event.data.msg);
        return;
      case 'storage':
        void this.#deps.onStorage?.(instance.key, event.data.ok, event.data.problem);
        return;
      case 'reach':
        this.#deps.onReach?.(this.#ref(instance), event.data.ok, event.data.partner, event.data.error);
        return;
      case 'host_key':
        this.#log(instance).error(
          { server: event.data.server, presented: event.data.presented, pinned: event.data.pinned },
          'refused a server whose host key changed',
        );
        this.#deps.onHostKeyChanged?.(
          this.#ref(instance),
          event.data.server,
          event.data.presented,
          event.data.pinned,
        );
        return;
      case 'database':
        if (event.data.ok) this.#deps.outage?.answered();
        else
          this.#deps.outage?.failed(`${instance.key}: ${event.data.what}`, new Error(event.data.error ?? ''));
        return;
      case 'metrics':
        this.#deps.metrics?.apply(event.data.batch, instance.key);
        return;
      default: {
        const never: never = event.data;
        throw new Error(`unhandled ${String(never)}`);
      }
    }
  }

  /** One child logger per instance: making a pino child costs more than writing a line with it. */
  readonly #loggers = new WeakMap<ManagedInstance, Logger>();

  #log(instance: ManagedInstance): Logger {
    let logger = this.#loggers.get(instance);
    if (!logger) {
      logger = this.#deps.logger.child({ instance: instance.key });
      this.#loggers.set(instance, logger);
    }
    return logger;
  }
}

/** Roles in start order (1) or stop order (-1). */

function rolesInOrder(direction: 1 | -1): PluginRole[] {
  const roles = Object.keys(startOrder) as PluginRole[];
  return roles.sort((a, b) => direction * (startOrder[a] - startOrder[b]));
}
