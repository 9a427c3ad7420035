/**
 * The supervisor: one worker thread per plugin instance, started and stopped by the
 * lifecycle table (spec 3.4). Actions wait for completion. A failed start or a crash puts
 * the instance in `error`, raises `plugin_failed`, and gives back the deliveries it held;
 * nothing a thread does can take the process or another instance down.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { pluginTypeDefinitions, type PluginType } from '../../actors/index.js';
import type { Orm } from '../../storage/db.js';
import { raiseAlert } from '../alerts/alerts.js';
import { ActorThread, StartFailure } from '../../protocol/actor-thread.js';
import { isAs2Request } from '../../protocol/as2-protocol.js';
import { ActorEvent, CoreRequest, type CoreResponse } from '../../protocol/core-protocol.js';
import type { Action } from '../lifecycle/states.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';
import { startOrder, type ChildSpec } from './child-spec.js';
import type { ActorCore, InstanceRef } from './core-port.js';
import { StartFailed, UnknownInstance } from './errors.js';
import { openInstanceCertificates } from './instance-certificates.js';
import { listInstances, loadInstanceConfig } from './instance-config.js';
import { ManagedInstance, type ServiceView } from './instance.js';

export interface SupervisorDeps {
  orm: Orm;
  secrets: SecretBox;
  core: ActorCore;
  logger: Logger;
  now: () => Date;
  storage: ActorStartData['storage'];
  userAgent: string;
  /** The worker entry of each type this process runs. */
  entries: Partial<Record<PluginType, URL>>;
  childSpec: ChildSpec;
}

export class Supervisor {
  readonly #deps: SupervisorDeps;
  readonly #instances = new Map<string, ManagedInstance>();
  #closing = false;

  constructor(deps: SupervisorDeps) {
    this.#deps = deps;
  }

  /** True for types whose instances this process can run. */
  runs(type: PluginType): boolean {
    return this.#deps.entries[type] !== undefined;
  }

  /** Starts every enabled instance, targets before sources. Failures leave `error` and an alert. */
  async startAll(): Promise<void> {
    const stored = (await listInstances(this.#em())).filter((i) => i.enabled && this.runs(i.type));
    stored.sort(
      (a, b) =>
        startOrder[pluginTypeDefinitions[a.type].role] - startOrder[pluginTypeDefinitions[b.type].role],
    );
    for (const item of stored) {
      await this.#start(this.#entry(item.type, item.name)).catch(() => {});
    }
  }

  /** Stops every instance, sources first, each within its shutdown time. */
  async stopAll(): Promise<void> {
    this.#closing = true;
    const running = [...this.#instances.values()].filter(
      (i) => i.status === 'running' || i.status === 'starting',
    );
    running.sort(
      (a, b) =>
        startOrder[pluginTypeDefinitions[b.type].role] - startOrder[pluginTypeDefinitions[a.type].role],
    );
    for (const instance of running) {
      if (instance.status === 'running') await this.#stop(instance).catch(() => {});
      else await instance.thread?.terminate();
    }
  }

  /** Every instance this process runs or could start: its configured ones of types it runs. */
  async list(): Promise<ServiceView[]> {
    const stored = await listInstances(this.#em());
    for (const item of stored) if (this.runs(item.type)) this.#entry(item.type, item.name);
    const configured = new Set(stored.map((i) => `${i.type}:${i.name}`));
    // An instance whose configuration was deleted stays listed while it runs.
    for (const [key, instance] of this.#instances) {
      if (!configured.has(key) && instance.status === 'stopped') this.#instances.delete(key);
    }
    return [...this.#instances.values()]
      .sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name))
      .map((i) => i.view());
  }

  /** The instance's status in this process, if it has one. */
  statusOf(type: PluginType, name: string): ServiceView | undefined {
    return this.#instances.get(`${type}:${name}`)?.view();
  }

  /** Performs an operator action and waits for it to complete (spec 3.4). */
  async act(type: PluginType, name: string, action: Action): Promise<ServiceView> {
    const instance = await this.#find(type, name);
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
    return instance.view();
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
      const config = await loadInstanceConfig(this.#em(), this.#deps.secrets, type, name);
      if (!config)
        throw new StartFailure('NO_CONFIGURATION', `the configuration of ${type}/${name} was deleted`);
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
      };
      const thread: ActorThread = await ActorThread.start({
        entry,
        workerData: start,
        startTimeoutMs: this.#deps.childSpec.startTimeoutMs,
        onRequest: (body) => this.#answer(instance, thread, body),
        onEvent: (body) => this.#onEvent(instance, body),
        onExit: (end) => {
          if (!end.expected) void this.#crashed(instance, end.reason);
        },
      });
      instance.thread = thread;
      instance.config = config;
      instance.apply('ready');
      this.#log(instance).info('plugin instance running');
      thread.event({ type: 'work' });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      instance.apply('fail');
      instance.error = reason;
      this.#log(instance).error({ reason }, 'plugin instance failed to start');
      await this.#alert(instance, `${type} ${name} failed to start: ${reason}`, reason);
      throw new StartFailed(reason);
    }
  }

  async #stop(instance: ManagedInstance): Promise<void> {
    instance.apply('stop');
    await this.#finishStop(instance);
  }

  /** From `stopping`: the actor finishes its work in hand, or its thread ends after the grace time. */
  async #finishStop(instance: ManagedInstance): Promise<void> {
    const clean = await instance.thread?.stop(this.#deps.childSpec.shutdownTimeoutMs);
    if (clean === false)
      this.#log(instance).warn('plugin instance did not stop in time; its thread was ended');
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
  }

  async #releaseClaims(instance: ManagedInstance, reason: string): Promise<void> {
    if (instance.claims.size === 0) return;
    const claims = [...instance.claims].map(([delivery_id, claim]) => ({ delivery_id, claim }));
    instance.claims.clear();
    await this.#deps.core.release(this.#ref(instance), claims, reason).catch((error: unknown) => {
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
          link: '/api/v1/services',
        },
        this.#deps.now(),
      );
    } catch (error) {
      this.#log(instance).error({ err: error }, 'could not raise the plugin_failed alert');
    }
  }

  #ref(instance: ManagedInstance): InstanceRef {
    return { type: instance.type, name: instance.name, settings: instance.config?.settings ?? {} };
  }

  /** Answers an actor's request; the thread is the one that asked, which may have ended since. */
  async #answer(
    instance: ManagedInstance,
    thread: ActorThread | undefined,
    body: unknown,
  ): Promise<CoreResponse> {
    const request = CoreRequest.parse(body);
    const role = pluginTypeDefinitions[instance.type].role;
    const ref = this.#ref(instance);
    switch (request.type) {
      case 'accept':
        if (role !== 'source') throw new Error(`${instance.type} instances do not accept messages`);
        return { type: 'accepted', accepted: await this.#deps.core.accept(ref, request.messages) };
      case 'claim': {
        if (role !== 'target') throw new Error(`${instance.type} instances do not claim deliveries`);
        if (instance.status !== 'running' || instance.thread !== thread)
          return { type: 'claimed', deliveries: [] };
        const deliveries = await this.#deps.core.claim(ref, request.limit);
        for (const d of deliveries) instance.claims.set(d.delivery_id, d.claim);
        // The thread may have ended while the claim ran: give those back at once.
        if (instance.thread !== thread || !thread?.alive)
          await this.#releaseClaims(instance, 'the instance ended');
        return { type: 'claimed', deliveries };
      }
      case 'result': {
        const applied = await this.#deps.core.result(ref, request.results);
        for (const r of request.results) {
          if (instance.claims.get(r.delivery_id) === r.claim) instance.claims.delete(r.delivery_id);
        }
        return { type: 'recorded', applied };
      }
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
    this.#log(instance)[event.data.level](event.data.fields ?? {}, event.data.msg);
  }

  #log(instance: ManagedInstance): Logger {
    return this.#deps.logger.child({ instance: instance.key });
  }
}
