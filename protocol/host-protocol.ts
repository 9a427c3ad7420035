/** What the supervisor tells or asks an actor. */
import { z } from 'zod';

/** Finish or hand back the work in hand, release resources, then answer `stopped`. */
const StopRequest = z.object({ type: z.literal('stop') });

export const HostRequest = z.discriminatedUnion('type', [StopRequest]);
export type HostRequest = z.infer<typeof HostRequest>;

/** Deliveries are queued for this target: claim some when there is room. */
const WorkEvent = z.object({ type: z.literal('work') });

export const HostEvent = z.discriminatedUnion('type', [WorkEvent]);
export type HostEvent = z.infer<typeof HostEvent>;
