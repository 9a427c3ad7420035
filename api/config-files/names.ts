/**
 * How the configuration file names what the database numbers: certificates get a name made
 * from what is stored (so exporting the same certificates on two installs gives the same
 * names), and each secret an environment variable name made from where it sits.
 */
import { ApiError } from '../errors.js';
import { fileVariablesText, isFileVariable } from '../schemas/config-file.js';

export interface NamedCertificate {
  id: number;
  sha256: string;
  description: string;
  common_name: string;
}

/**
 * The description, else the common name, else the fingerprint; a name two certificates
 * would share gets the start of each one's fingerprint.
 */
export function certificateNames(certificates: NamedCertificate[]): Map<number, string> {
  const base = (c: NamedCertificate) => c.description || c.common_name || c.sha256.slice(0, 16);
  const counts = new Map<string, number>();
  for (const c of certificates) counts.set(base(c), (counts.get(base(c)) ?? 0) + 1);
  return new Map(
    certificates.map((c) => [
      c.id,
      counts.get(base(c))! > 1 ? `${base(c)} (${c.sha256.slice(0, 12)})` : base(c),
    ]),
  );
}

/** `PIER_PARTNER_ACME_HTTP_BASIC_PASSWORD`: one variable per secret, named after its place. */
export function envName(...parts: string[]): string {
  return ['PIER', ...parts].map((p) => p.toUpperCase().replace(/[^A-Z0-9]+/g, '_')).join('_');
}

export function envReference(...parts: string[]): string {
  return `\${env:${envName(...parts)}}`;
}

/** Thrown while reading a file: every problem by its path in the file. */
export class ConfigProblems extends Error {
  constructor(readonly problems: Record<string, string>) {
    super(`The configuration file has ${Object.keys(problems).length} problem(s)`);
  }
  toApiError(): ApiError {
    return new ApiError('INVALID_INPUT', this.message, this.problems);
  }
}

/** The value of `${env:NAME}` in the given environment, or a problem at `path`; only a file's own variables are read. */
export function resolveReference(
  reference: string,
  env: NodeJS.ProcessEnv,
  path: string,
  problems: Record<string, string>,
): string | undefined {
  const name = /^\$\{env:([A-Za-z0-9_]+)\}$/.exec(reference)?.[1];
  // The file's schema refuses other names already; checked again where the variable is read, and
  // before it is, so that no caller learns whether a variable outside them is set.
  if (!name || !isFileVariable(name)) {
    problems[path] = `Write a secret as \${env:NAME}, NAME one of ${fileVariablesText}`;
    return undefined;
  }
  const value = env[name];
  if (value === undefined) {
    problems[path] = `The environment variable ${name} is not set`;
    return undefined;
  }
  return value;
}
