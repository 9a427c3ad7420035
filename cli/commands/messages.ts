/** `pier messages list|show|redeliver`: finding a message and sending one of its deliveries again. */
import { Command } from 'commander';
import { UsageError, wholeNumber } from '../args.js';
import { environment, withEnvironment } from '../env-help.js';
import { cliCaller, withSession } from '../session.js';
import { say } from '../io.js';

interface ListOptions {
  q?: string;
  direction?: string;
  target?: string;
  status?: string;
  from?: string;
  to?: string;
  limit: number;
}

export function messageCommands(): Command {
  const messages = new Command('messages').description('Find messages and deliver them again');
  withEnvironment(
    messages
      .command('list')
      .description(
        'List messages, newest first: id, created, direction, status, from, to, file name (tab-separated, under a header row)',
      )
      .option('--q <text>', 'file name, AS2 Message-ID or the partner’s Message-ID')
      .option('--direction <direction>', 'inbound or outbound')
      .option('--target <name>', 'messages with a delivery to this target')
      .option('--status <status>', 'a message status, such as failed')
      .option('--from <party>', 'sender party name')
      .option('--to <party>', 'receiver party name')
      .option('--limit <n>', 'at most this many (1 to 500)', wholeNumber, 50)
      .option('--no-header', 'leave out the header row (for scripts)')
      .action(({ header, ...opts }: ListOptions & { header: boolean }) =>
        withSession(async (ctx) => {
          const [{ listMessages }, { MessageListQuery }, { parseOrThrow }, { freshEm }] = await Promise.all([
            import('../../api/resources/messages/service.js'),
            import('../../api/schemas/message.js'),
            import('../../api/validation.js'),
            import('../../api/context.js'),
          ]);
          const query = parseOrThrow(
            MessageListQuery,
            Object.fromEntries(
              Object.entries({ ...opts, limit: String(opts.limit) }).filter(([, v]) => v !== undefined),
            ),
          );
          const page = await listMessages(freshEm(ctx), query);
          if (page.items.length === 0) say('No messages.');
          else if (header)
            say(['ID', 'CREATED', 'DIRECTION', 'STATUS', 'FROM', 'TO', 'FILE NAME'].join('\t'));
          for (const m of page.items) {
            say([m.id, m.created_at, m.direction, m.status, m.from, m.to, m.file_name].join('\t'));
          }
          if (page.total > page.items.length) say(`(${page.items.length} of ${page.total})`);
        }),
      ),
    environment.session,
  );
  withEnvironment(
    messages
      .command('show <id>')
      .description(
        'Print a message with its deliveries, history and AS2 details, as the API answers it (JSON)',
      )
      .action((id: string) =>
        withSession(async (ctx) => {
          const [{ getMessage }, { MessageParams }, { parseOrThrow }, { freshEm }] = await Promise.all([
            import('../../api/resources/messages/service.js'),
            import('../../api/schemas/message.js'),
            import('../../api/validation.js'),
            import('../../api/context.js'),
          ]);
          const params = parseOrThrow(MessageParams, { id });
          say(JSON.stringify(await getMessage(freshEm(ctx), params.id), null, 2));
        }),
      ),
    environment.session,
  );
  withEnvironment(
    messages
      .command('redeliver <id>')
      .description('Deliver one delivery of a message again from the start (a running pier picks it up)')
      .option('--delivery <id>', 'the delivery (see messages show)', wholeNumber)
      .option('--target <name>', 'the delivery to this target')
      .action((id: string, opts: { delivery?: number; target?: string }) =>
        withSession(async (ctx) => {
          const [{ getMessage, redeliverDelivery }, { MessageParams }, { parseOrThrow }, { freshEm }] =
            await Promise.all([
              import('../../api/resources/messages/service.js'),
              import('../../api/schemas/message.js'),
              import('../../api/validation.js'),
              import('../../api/context.js'),
            ]);
          const params = parseOrThrow(MessageParams, { id });
          const message = await getMessage(freshEm(ctx), params.id);
          const chosen = message.deliveries.filter(
            (d) =>
              (opts.delivery === undefined || d.id === opts.delivery) &&
              (opts.target === undefined || d.target === opts.target),
          );
          if (chosen.length !== 1) {
            const all =
              message.deliveries.map((d) => `${d.id} (${d.target}, ${d.state})`).join(', ') || 'none';
            if (chosen.length === 0)
              throw new Error(`Message ${id} has no such delivery; its deliveries: ${all}`);
            throw new UsageError(
              `Message ${id} has several deliveries; name one with --delivery or --target: ${all}`,
            );
          }
          const after = await redeliverDelivery(ctx, cliCaller, params.id, chosen[0]!.id);
          const delivery = after.deliveries.find((d) => d.id === chosen[0]!.id)!;
          say(`Delivery ${delivery.id} to ${delivery.target} is ${delivery.state}.`);
        }),
      ),
    environment.session,
  );
  return messages;
}
