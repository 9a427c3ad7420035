/** What an upload may hold, and the refusal that names the form field to fix. */

/** Certificates (and keys) one upload may hold; a bigger bundle is refused before it is parsed. */
export const maxItemsPerUpload = 1000;

export type UploadField = 'certificate' | 'private_key' | 'password' | 'private_key_password';

/** Nothing usable, or a password problem: the field to fix and what to do, in words. */
export class UploadProblem extends Error {
  constructor(
    readonly field: UploadField,
    message: string,
  ) {
    super(message);
    this.name = 'UploadProblem';
  }
}
