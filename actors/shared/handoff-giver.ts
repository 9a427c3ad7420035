/**
 * A source's side of its hand-offs (protocol/handoff-protocol.ts): the channels to the targets of
 * its process that take documents, and the three steps around an acceptance. Before it, `give`
 * hands the document to each target of the message's planned way that is here; the acceptance
 * stores those deliveries as delivered; after it, `settle` tells each target to name its file,
 * or to drop it when the acceptance did not store that delivery (a duplicate, a route changed
 * meanwhile, an acceptance that failed).
 *
 * A target with several threads (a file writer's) spreads its channel over them: each document
 * goes to one of them in turn, and its `settle` to the same one.
 *
 * A target that declines, fails or is not here simply gets nothing: the acceptance queues its
 * delivery as before. A target that stops after its delivery was stored as delivered, before
 * naming the file, has the delivery queued again here; if that fails too, the target does it
 * when it starts (actors/file-writer/handoff.ts).
 */
import type { MessagePort } from 'node:worker_threads';
import type { Acceptance, OfferedMessage } from '../../protocol/core-protocol.js';
import { HandoffClient, type HandRequest } from '../../protocol/handoff-protocol.js';
import type { AcceptancePort, PlannedWay } from './acceptance-port.js';

/** What was handed for one message: per target, the history text of its delivery. */
export type Handed = NonNullable<OfferedMessage['handed']>;

/** One message's document as the targets took it, with the channel each took it by. */
export class Handing {
  constructor(
    readonly messageId: string,
    readonly taken: { target: string; detail: string; client: HandoffClient }[],
  ) {}

  /** What the acceptance is told (OfferedMessage.handed); none when nothing was taken. */
  get offered(): Handed | undefined {
    return this.taken.length > 0 ? this.taken.map(({ target, detail }) => ({ target, detail })) : undefined;
  }
}

type Taken = Handing['taken'][number];

/** What `target` took of the document, or null when it declined or could not answer. */
async function handTo(client: HandoffClient, target: string, request: HandRequest): Promise<Taken | null> {
  try {
    const answer = await client.ask(request);
    return answer.taken ? { target, detail: answer.detail, client } : null;
  } catch {
    return null;
  }
}

/** Tells a target to forget a document the acceptance did not store; `uncertain`: it may have. */
async function dropAt(client: HandoffClient, messageId: string, uncertain: boolean): Promise<void> {
  await client.ask({ type: 'drop', message_id: messageId, uncertain }).catch(() => {});
}

export interface HandoffLog {
  (level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown>): void;
}

/**
 * The channels to one target: the one the supervisor made (or a listener's branch of it), and one
 * to each other thread of the target that it spread the channel to (a file writer's threads).
 * Each document goes to the next open one in turn, so the target's threads share them.
 */
class TargetChannels {
  readonly #clients: HandoffClient[] = [];
  #next = 0;

  constructor(
    channel: MessagePort,
    private readonly onEmpty: () => void,
  ) {
    this.#add(channel);
  }

  #add(channel: MessagePort): void {
    const client: HandoffClient = new HandoffClient(
      channel,
      () => {
        const at = this.#clients.indexOf(client);
        if (at >= 0) this.#clients.splice(at, 1);
        if (this.#clients.length === 0) this.onEmpty();
      },
      (branch) => this.#add(branch),
    );
    this.#clients.push(client);
  }

  /** The channel the next document goes by; undefined when none is open. */
  pick(): HandoffClient | undefined {
    for (let tried = 0; tried < this.#clients.length; tried++) {
      const client = this.#clients[this.#next++ % this.#clients.length]!;
      if (client.open) return client;
    }
    return undefined;
  }

  get open(): boolean {
    return this.#clients.some((c) => c.open);
  }

  close(): void {
    for (const client of this.#clients.splice(0)) client.close();
  }
}

export class HandoffGiver {
  readonly #targets = new Map<string, TargetChannels>();

  constructor(
    private readonly port: Pick<AcceptancePort, 'plan' | 'requeueHanded'>,
    private readonly log: HandoffLog,
  ) {}

  /** A channel to `target` (a new one replaces those before: the target was started again). */
  connect(target: string, channel: MessagePort): void {
    this.#targets.get(target)?.close();
    const channels: TargetChannels = new TargetChannels(channel, () => {
      if (this.#targets.get(target) === channels) this.#targets.delete(target);
    });
    this.#targets.set(target, channels);
  }

  /** The way the acceptance would plan for `message`, when any target on it is here to take it. */
  wayOf(message: OfferedMessage): PlannedWay | null {
    if (this.#targets.size === 0) return null;
    const way = this.port.plan(message);
    if (!way || !way.targets.some((t) => this.#targets.get(t)?.open)) return null;
    return way;
  }

  /**
   * Hands the document to every target of `way` that is here and takes it; answers what was
   * taken (empty: nothing, the acceptance queues every delivery). `document`: its bytes in memory,
   * moved to the target when it is the only one here (the caller must not use them after); the
   * targets read the stored stage otherwise.
   */
  async give(
    way: PlannedWay,
    message: Pick<OfferedMessage, 'id' | 'file_name'>,
    payload: HandRequest['payload'],
    document?: Uint8Array,
  ): Promise<Handing> {
    // Loops and methods, not callbacks made per message: V8 compiles such a callback again after
    // each collection (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
    const here: { target: string; client: HandoffClient }[] = [];
    for (const target of way.targets) {
      const client = this.#targets.get(target)?.pick();
      if (client) here.push({ target, client });
    }
    const request: HandRequest = {
      type: 'hand',
      message: { id: message.id, from: way.from, to: way.to, file_name: message.file_name },
      payload: document && here.length === 1 ? { ...payload, bytes: document } : payload,
    };
    const asked: Promise<Taken | null>[] = [];
    for (const { target, client } of here) asked.push(handTo(client, target, request));
    const taken: Taken[] = [];
    for (const answer of await Promise.all(asked)) if (answer) taken.push(answer);
    return new Handing(message.id, taken);
  }

  /**
   * After the acceptance: each target names the file of a delivery stored as delivered, and drops
   * the others'. `acceptance` undefined: it failed and may have committed (the targets ask the
   * database before they drop); null: none was offered. Waits for the names, so the document is
   * where the partner's receipt says before the receipt goes. Asked on the channel the document
   * went by: a target started again since has nothing in hand.
   */
  async settle(handing: Handing, acceptance: Acceptance | null | undefined): Promise<void> {
    if (handing.taken.length === 0) return;
    const stored = new Map<string, number>();
    if (acceptance && !acceptance.duplicate)
      for (const { target, delivery_id } of acceptance.handed ?? []) stored.set(target, delivery_id);
    const asked: Promise<void>[] = [];
    for (const { target, client } of handing.taken) {
      const deliveryId = stored.get(target);
      asked.push(
        deliveryId === undefined
          ? dropAt(client, handing.messageId, acceptance === undefined)
          : this.#link(client, handing.messageId, target, deliveryId),
      );
    }
    await Promise.all(asked);
  }

  async #link(client: HandoffClient, messageId: string, target: string, deliveryId: number): Promise<void> {
    // A target that could not name the file queued the delivery again itself; asked here too
    // (a no-op once done), for a target whose own request failed.
    let lost: string | null;
    try {
      const answer = await client.ask({ type: 'link', message_id: messageId, delivery_id: deliveryId });
      lost = answer.ok ? null : answer.error;
    } catch (error) {
      lost = `the target stopped before it named the file handed to it (${(error as Error).message})`;
    }
    if (lost !== null) await this.#requeue(messageId, target, lost);
  }

  async #requeue(messageId: string, target: string, reason: string): Promise<void> {
    try {
      await this.port.requeueHanded(messageId, target, reason);
    } catch (error) {
      this.log('error', 'could not queue a handed delivery again; its target does when it starts', {
        message_id: messageId,
        target,
        error: (error as Error).message,
      });
    }
  }

  close(): void {
    for (const channels of this.#targets.values()) channels.close();
    this.#targets.clear();
  }
}
