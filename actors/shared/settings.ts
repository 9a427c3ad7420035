/** An actor's first step: its settings checked against its type's declaration, or a failed start. */
import { z } from 'zod';
import { InitError } from '../../protocol/worker-host/host.js';
import type { PluginTypeDefinition, SettingsOf } from './definition.js';

export function parseSettings<D extends Pick<PluginTypeDefinition, 'fields' | 'problems'>>(
  def: D,
  settings: Record<string, unknown>,
): SettingsOf<D> {
  const parsed = z.object(def.fields).safeParse(settings);
  const problems: Record<string, string> = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems[String(issue.path[0] ?? '_form')] ??= issue.message;
  } else Object.assign(problems, def.problems?.(parsed.data));
  const list = Object.entries(problems);
  if (list.length > 0) {
    throw new InitError(
      'BAD_CONFIGURATION',
      `the configuration is not valid: ${list.map(([k, v]) => `${k}: ${v}`).join('; ')}`,
    );
  }
  // Parsed by `def.fields` (a failure threw above): what SettingsOf<D> says it is.
  return parsed.data as SettingsOf<D>;
}
