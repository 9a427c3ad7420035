/**
 * The `format` setting of targets that hand payloads on (file-writer, http-poster, sftp-sender):
 * `edi` delivers the bytes as stored; `json` delivers an X12 or EDIFACT interchange in pier's
 * JSON form (docs/edi-json.md), streamed, so a large one costs no more memory than a small one.
 * The interchange is read once to check it before the first byte goes out, so a payload that is
 * not one fails the delivery at once, saying why, rather than leaving half a file behind.
 */
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { annotate } from '../../edi/json/annotate.js';
import { EdiJsonError } from '../../edi/json/form.js';
import { ediToJson } from '../../edi/json/translate.js';

export const deliveryFormats = ['edi', 'json'] as const;
export type DeliveryFormat = (typeof deliveryFormats)[number];

export const formatField = z
  .enum(deliveryFormats)
  .describe(
    'edi: the payload as stored; json: an X12 or EDIFACT interchange in its JSON form (docs/edi-json.md), the file name with .json added; anything else fails the delivery',
  );

/** Why a payload cannot be delivered as JSON: a failure not worth retrying (the bytes will not change). */
export class NotTranslatable extends Error {}

/**
 * The JSON form of the payload `open` reads: checked by a first pass (nothing kept), then
 * translated as it streams from a second opening, as UTF-8 bytes: a stream of the payload's bytes
 * is what every target writes (an SFTP upload takes Buffers, not text), and what ediToJson yields.
 */
export async function asJson(open: () => Promise<Readable>): Promise<AsyncGenerator<Buffer>> {
  const first = await open();
  try {
    for await (const bytes of ediToJson(first, null)) void bytes;
  } catch (error) {
    if (error instanceof EdiJsonError)
      throw new NotTranslatable(`format json: the payload cannot be given as JSON: ${error.message}`);
    throw error;
  } finally {
    first.destroy();
  }
  return ediToJson(await open(), annotate);
}

/** The delivered file's name: with `.json` added for the JSON form. */
export const formattedName = (name: string, format: DeliveryFormat): string =>
  format === 'json' ? `${name}.json` : name;
