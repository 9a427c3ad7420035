/**
 * An actor thread's counts since its last batch, as they cross to the main thread (an
 * `ActorEvent` of type `metrics`, protocol/core-protocol.ts). The main thread checks every
 * batch against the catalog: a name it does not know, a label it does not take or a missing
 * one refuses the batch, so a thread can never mint a series the catalog does not declare.
 */
import { z } from 'zod';
import { metricCatalog, metricNames, type MetricName } from './catalog.js';
import { limits } from '../../limits/limits.js';

/** Longest label value taken; names of records are at most 255 characters. */
const labelValue = z.string().max(256);
const labels = z.record(z.string(), labelValue);

export const MetricsBatch = z
  .object({
    counters: z
      .array(z.object({ name: z.enum(metricNames), labels, by: z.number().finite().nonnegative() }))
      .max(limits.maxMetricsBatchEntries),
    observations: z
      .array(
        z.object({
          name: z.enum(metricNames),
          labels,
          values: z.array(z.number().finite()).min(1).max(limits.maxMetricsBatchEntries),
        }),
      )
      .max(limits.maxMetricsBatchEntries),
    /**
     * The thread's own PostgreSQL connections (the flow's commands run there) when it sent the
     * batch: a gauge, so the latest replaces the one before.
     */
    pool: z
      .object({
        in_use: z.number().int().nonnegative(),
        idle: z.number().int().nonnegative(),
        waiting: z.number().int().nonnegative(),
      })
      .optional(),
  })
  .superRefine((batch, ctx) => {
    const check = (kind: 'counter' | 'histogram', name: MetricName, given: Record<string, string>) => {
      const entry = metricCatalog[name];
      if (entry.kind !== kind) ctx.addIssue({ code: 'custom', message: `${name} is not a ${kind}` });
      const wanted = [...entry.labels].sort().join(',');
      if (Object.keys(given).sort().join(',') !== wanted)
        ctx.addIssue({ code: 'custom', message: `${name} takes the labels ${wanted}` });
    };
    for (const c of batch.counters) check('counter', c.name, c.labels);
    for (const o of batch.observations) check('histogram', o.name, o.labels);
  });
export type MetricsBatch = z.infer<typeof MetricsBatch>;
