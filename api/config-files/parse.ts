/** Reading a configuration file's text (YAML, or JSON, which is YAML too) into its checked form. */
import type { z } from 'zod';
import { ConfigFile } from '../schemas/config-file.js';
import { ConfigProblems } from './names.js';
import { readYaml } from './read-yaml.js';

/** `partners[3].as2.endpoint`: where a problem sits, as someone reading the file would point to it. */
export function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(file)' : out;
}

function zodProblems(error: z.ZodError): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems[pathText([...issue.path, key])] ??= 'Unknown property';
      continue;
    }
    problems[pathText(issue.path)] ??= issue.message;
  }
  return problems;
}

/** Names each section's records by; two records of a section may not share one. */
function duplicateNames(file: ConfigFile): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const section of ['certificates', 'organizations', 'partners', 'instances', 'routes'] as const) {
    const seen = new Map<string, number>();
    file[section].forEach((record, i) => {
      const first = seen.get(record.name);
      if (first !== undefined) {
        problems[`${section}[${i}].name`] = `${section}[${first}] has the name ${record.name} already`;
      } else seen.set(record.name, i);
    });
  }
  return problems;
}

/** Throws ConfigProblems listing every problem found by its path; nothing is read from the install. */
export function parseConfigText(text: string): ConfigFile {
  const parsed = ConfigFile.safeParse(readYaml(text));
  if (!parsed.success) throw new ConfigProblems(zodProblems(parsed.error));
  const duplicates = duplicateNames(parsed.data);
  if (Object.keys(duplicates).length > 0) throw new ConfigProblems(duplicates);
  return parsed.data;
}
