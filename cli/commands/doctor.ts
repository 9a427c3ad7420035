/**
 * `pier doctor [--json]`: a checklist of what pier needs, with the fix for each failure; exit
 * 0 when every check passed, 1 otherwise. The checks load only when the command runs.
 */
import { Command } from 'commander';
import { environment, withEnvironment } from '../env-help.js';
import { cliIo } from '../io.js';
import { ReportedError } from '../args.js';

export function doctorCommand(): Command {
  const command = new Command('doctor')
    .description(
      'Check the database, payload store, secret key, ports, certificates, partners, clock and AS2 library; ' +
        'print ✔/✘ with the fix for each failure',
    )
    .option('--json', 'print the checklist as JSON (for scripts)')
    .action(async (opts: { json?: boolean }) => {
      const [{ runDoctor }, { allPassed, renderJson, renderText }] = await Promise.all([
        import('../doctor/run-doctor.js'),
        import('../doctor/checklist.js'),
      ]);
      const results = await runDoctor({ env: cliIo().env });
      cliIo().out(opts.json ? renderJson(results) : renderText(results));
      // The checklist said what failed; exit 1 without a second message.
      if (!allPassed(results)) throw new ReportedError('a check failed');
    });
  return withEnvironment(command, environment.session);
}
