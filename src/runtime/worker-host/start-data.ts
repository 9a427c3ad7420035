/** What an actor thread is started with (its workerData), checked on arrival. */
import { z } from 'zod';

export const ActorStartData = z.object({
  type: z.string(),
  name: z.string(),
  settings: z.record(z.string(), z.unknown()),
  /** Opened write-only values; they live only in the thread's memory. */
  secrets: z.record(z.string(), z.unknown()),
  storage: z.object({ backend: z.literal('local'), directory: z.string() }),
  /** User-Agent of requests the actor sends (spec 2.11 identification_hide_version). */
  user_agent: z.string(),
});
export type ActorStartData = z.infer<typeof ActorStartData>;
