/**
 * Reading a wizard form that carries files (a key, a certificate) with its text fields, within
 * the certificate upload's limit of 20 MiB. A file field left empty is sent by
 * browsers as an empty part: the same as no file.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError, validationError } from '../../../errors.js';
import { formFailure, partKey, putProblem, type FormProgress } from '../../../http/multipart-form.js';
import { uploadLimitBytes } from '../../../schemas/certificate.js';
import type { FormFields } from '../../form.js';

export interface FilesForm {
  fields: FormFields;
  files: Record<string, Buffer>;
}

function tooLarge(): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', 'The form is larger than the limit of 20 MiB');
}

export async function readFilesForm(
  request: FastifyRequest,
  fileFields: readonly string[],
  /** The largest text field; a form with a pasted document (EDI as JSON) takes more than 64 KiB. */
  fieldBytes = 64 * 1024,
): Promise<FilesForm> {
  if (!request.isMultipart()) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'This form is sent as multipart/form-data', undefined, {
      Accept: 'multipart/form-data',
    });
  }
  const limits = { fileField: fileFields[0] ?? 'file', files: fileFields.length, fields: 40, parts: 48 };
  const progress: FormProgress = { problems: {} };
  try {
    if (Number(request.headers['content-length'] ?? 0) > uploadLimitBytes) throw tooLarge();
    const form: FilesForm = { fields: {}, files: {} };
    let total = 0;
    for await (const part of request.parts({
      limits: { fileSize: uploadLimitBytes, fieldSize: fieldBytes, ...limits },
    })) {
      const name = partKey(part.fieldname);
      if (part.type === 'field') progress.lastField = name;
      const bytes =
        part.type === 'file' ? await part.toBuffer() : Buffer.from(String(part.value ?? ''), 'utf8');
      total += bytes.length;
      if (total > uploadLimitBytes || (part.type === 'file' && part.file.truncated)) throw tooLarge();
      if (part.type === 'file') {
        if (!fileFields.includes(name)) putProblem(progress.problems, name, 'Unknown file part');
        else if (bytes.length > 0) form.files[name] = bytes;
        continue;
      }
      const text = bytes.toString('utf8');
      const prev = form.fields[name];
      form.fields[name] = prev === undefined ? text : [...[prev].flat(), text];
    }
    if (Object.keys(progress.problems).length > 0) throw validationError(progress.problems);
    return form;
  } catch (error) {
    throw formFailure(error, limits, progress) ?? error;
  }
}
