/** Control numbers of a partner's interchanges (docs/edi-json.md#control-numbers). */
import { z } from 'zod';
import { idParam } from './common.js';

export const controlDirections = ['outbound', 'inbound'] as const;
export const controlLevelNames = ['interchange', 'group', 'set'] as const;

export const ControlNumberRecord = z.object({
  direction: z.enum(controlDirections),
  level: z
    .enum(controlLevelNames)
    .describe('interchange: X12 ISA13, EDIFACT UNB 0020; group: GS06, UNG 0048; set: ST02, UNH 0062'),
  last_value: z.number().int().describe('The last number given; the next is one more'),
  updated_at: z.string().describe('RFC 3339 time of the last change'),
});
export type ControlNumberRecord = z.infer<typeof ControlNumberRecord>;

export const controlNumberList = z.object({ control_numbers: z.array(ControlNumberRecord) });

export const ControlNumberParams = z.object({
  id: idParam,
  direction: z.enum(controlDirections),
  level: z.enum(controlLevelNames),
});

export const ControlNumberReset = z.strictObject({
  last_value: z
    .number()
    .int('Must be a whole number')
    .min(0, 'Must be 0 or more')
    .max(99_999_999_999_999, 'Must be at most 99999999999999')
    .describe('The last number given; the next interchange takes one more (0: start again at 1)'),
});
