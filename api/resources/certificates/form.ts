/**
 * Reading the parts of a certificate upload (multipart/form-data). Each part may be a file or
 * pasted text. The whole request is held to 20 MiB (docs/api/conventions.md#limits): a declared length above it is
 * refused before reading, and the bytes actually read are counted for chunked requests.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError, validationError } from '../../errors.js';
import {
  formFailure,
  partKey,
  putProblem,
  unnamedPartKey,
  type FormProgress,
} from '../../http/multipart-form.js';
import { uploadLimitBytes } from '../../schemas/certificate.js';

export interface UploadForm {
  certificate?: Buffer;
  private_key?: Buffer;
  password?: string;
  private_key_password?: string;
  description?: string;
}

const binaryParts = ['certificate', 'private_key'] as const;
const textParts = ['password', 'private_key_password', 'description'] as const;
const known = new Set<string>([...binaryParts, ...textParts]);

function tooLarge(): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', 'The upload is larger than the limit of 20 MiB');
}

/** Counts busboy enforces; more is a 400 naming the field (docs/api/conventions.md#errors keeps 413 for size). */
const formLimits = { fileField: 'certificate', files: 2, fields: 5, parts: 7 };

export async function readUploadForm(request: FastifyRequest): Promise<UploadForm> {
  const progress: FormProgress = { problems: {} };
  try {
    return await readParts(request, progress);
  } catch (error) {
    throw formFailure(error, formLimits, progress) ?? error;
  }
}

async function readParts(request: FastifyRequest, progress: FormProgress): Promise<UploadForm> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > uploadLimitBytes) throw tooLarge();
  const form: UploadForm = {};
  const problems = progress.problems;
  let total = 0;
  const parts = request.parts({
    limits: { fileSize: uploadLimitBytes, fieldSize: uploadLimitBytes, ...formLimits },
  });
  for await (const part of parts) {
    const name = partKey(part.fieldname);
    if (part.type === 'field') progress.lastField = name;
    const bytes =
      part.type === 'file' ? await part.toBuffer() : Buffer.from(String(part.value ?? ''), 'utf8');
    if (part.type === 'field' && part.valueTruncated) throw tooLarge();
    total += bytes.length;
    if (total > uploadLimitBytes) throw tooLarge();
    // Browsers send an empty part for a form field left blank: the same as leaving it out.
    if (bytes.length === 0 && name !== 'certificate') continue;
    if (!known.has(name)) {
      putProblem(
        problems,
        name,
        `${name === unnamedPartKey ? 'A part without a name' : 'Unknown part'}; send certificate, private_key, password, private_key_password, description`,
      );
      continue;
    }
    if (form[name as keyof UploadForm] !== undefined) {
      putProblem(problems, name, 'Sent more than once');
      continue;
    }
    if ((binaryParts as readonly string[]).includes(name)) form[name as 'certificate'] = bytes;
    else form[name as 'password'] = bytes.toString('utf8');
  }
  if (!form.certificate || form.certificate.length === 0) {
    problems.certificate ??= 'Required: a certificate, bundle, PKCS#12 file or key, as a file or pasted text';
  }
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return form;
}
