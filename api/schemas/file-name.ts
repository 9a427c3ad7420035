/**
 * The name a message sent by hand is recorded under. A multipart upload's name comes from the
 * sender's file system, so it is made fit (its last path part, control characters replaced by
 * `_`: upload.ts, uploadedFileName); the JSON send's `file_name` is a value the caller chose, so
 * one holding a control character is refused instead, with the field named. Either way no
 * control character is stored: none belongs in a file name, and PostgreSQL refuses U+0000 in text.
 */
import { z } from 'zod';

export const sentFileName = z
  .string()
  .min(1)
  .max(255)
  // C0 control characters and DEL, the ones the multipart upload replaces.
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'Must not contain control characters');
