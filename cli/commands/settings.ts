/**
 * `pier settings show|set`: the settings record (docs/api/settings.md) from the shell, with the API's
 * validation and audit. It works while the server is stopped, which is when a setting that
 * keeps pier from starting (an unusable payload store) has to be put back.
 */
import { Command, InvalidArgumentError } from 'commander';
import { environment, withEnvironment } from '../env-help.js';
import { cliCaller, withSession } from '../session.js';
import { say } from '../io.js';

/** KEY=VALUE, the value typed as the setting's default is (number, true/false, text). */
export function settingArgument(
  text: string,
  previous: Record<string, unknown> = {},
): Record<string, unknown> {
  const at = text.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`Write each setting as KEY=VALUE, not "${text}"`);
  const key = text.slice(0, at);
  const raw = text.slice(at + 1);
  let value: unknown = raw;
  if (/^-?[0-9]+(\.[0-9]+)?$/.test(raw)) value = Number(raw);
  else if (raw === 'true' || raw === 'false') value = raw === 'true';
  return { ...previous, [key]: value };
}

function print(values: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of keys) say(`${key}=${String(values[key])}`);
}

export function settingsCommands(): Command {
  const settings = new Command('settings').description(
    'Show or change the settings record (effective on restart)',
  );
  withEnvironment(
    settings
      .command('show')
      .description('Print every setting as KEY=VALUE')
      .action(() =>
        withSession(async (ctx) => {
          const [{ getSettings }, { settingsDefaults }, { freshEm }] = await Promise.all([
            import('../../api/resources/settings/service.js'),
            import('../../api/schemas/settings.js'),
            import('../../api/context.js'),
          ]);
          print(await getSettings(ctx, freshEm(ctx)), Object.keys(settingsDefaults));
        }),
      ),
    environment.session,
  );
  withEnvironment(
    settings
      .command('set')
      .description('Change settings, validated and audited as PUT /settings; prints the result')
      .argument(
        '<KEY=VALUE...>',
        'for example storage_backend=local',
        (text: string, all?: Record<string, unknown>) => settingArgument(text, all),
      )
      .action((changes: Record<string, unknown>) =>
        withSession(async (ctx) => {
          const [{ updateSettings }, { SettingsUpdate, settingsDefaults }, { parseOrThrow }] =
            await Promise.all([
              import('../../api/resources/settings/service.js'),
              import('../../api/schemas/settings.js'),
              import('../../api/validation.js'),
            ]);
          const body = parseOrThrow(SettingsUpdate, changes);
          print(await updateSettings(ctx, cliCaller, body), Object.keys(settingsDefaults));
          say('A running pier applies the change when it restarts.');
        }),
      ),
    environment.session,
  );
  return settings;
}
