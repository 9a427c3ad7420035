/**
 * POST /as2/remote-profiles/{id}/check-connection and /test-message (spec 4.3). The check
 * runs in this process with the named sender's timeout and the partner profile's TLS trust
 * and HTTP authentication, exactly as the sender would connect; it sends no AS2 message.
 * The test message is a small generated text file accepted and delivered by the normal flow.
 */
import { randomUUID } from 'node:crypto';
import { keepBytes } from '../../../storage/payloads/inline.js';
import { as2SenderType } from '../../../actors/as2-sender/config.js';
import {
  checkConnectionTo,
  reachOfPartner,
  routedTargets,
  type CheckAnswer,
} from '../../../runtime/facade.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, runtimeOf, type ApiContext } from '../../context.js';
import { ApiError, notFound, validationError } from '../../errors.js';
import { getMessage } from '../messages/service.js';

async function senderNames(ctx: ApiContext): Promise<{ name: string; timeout_seconds: number }[]> {
  const rows = await freshEm(ctx)
    .getConnection()
    .execute<{ name: string; settings: Record<string, unknown> }[]>(
      `select name, settings from plugin_config where type = 'as2-sender' order by name`,
    );
  return rows.map((r) => ({
    name: r.name,
    timeout_seconds:
      typeof r.settings?.timeout_seconds === 'number'
        ? r.settings.timeout_seconds
        : (as2SenderType.defaults.timeout_seconds as number),
  }));
}

/** The named sender, or the only one there is. */
function chooseSender<T extends { name: string }>(
  senders: T[],
  named: string | undefined,
  preferred: string[] = [],
) {
  if (named !== undefined) {
    const found = senders.find((s) => s.name === named);
    if (!found) throw validationError({ sender: `No AS2 sender is named ${named}` });
    return found;
  }
  const routed = senders.filter((s) => preferred.includes(s.name));
  if (routed.length === 1) return routed[0]!;
  if (senders.length === 1) return senders[0]!;
  throw validationError({
    sender:
      senders.length === 0
        ? 'No AS2 sender is configured'
        : `Name one of the AS2 senders (${senders.map((s) => s.name).join(', ')})`,
  });
}

export async function checkPartnerConnection(
  ctx: ApiContext,
  partnerId: number,
  body: { sender?: string | undefined },
): Promise<CheckAnswer & { sender: string; endpoint: string }> {
  const reach = await reachOfPartner(ctx.orm, ctx.secrets, partnerId);
  if (!reach) throw notFound('AS2 profile');
  const sender = chooseSender(await senderNames(ctx), body.sender);
  if (runtimeOf(ctx).supervisor.statusOf('as2-sender', sender.name)?.status !== 'running')
    throw new ApiError('SENDER_NOT_RUNNING', `The AS2 sender ${sender.name} is not running`);
  const answer = await checkConnectionTo({
    endpoint: reach.endpoint,
    certificates: reach.certificates,
    tls: reach.tls,
    headers: { 'User-Agent': runtimeOf(ctx).userAgent, ...reach.headers },
    timeoutMs: Math.min(sender.timeout_seconds, 30) * 1000,
    now: ctx.now(),
  });
  return { ...answer, sender: sender.name, endpoint: reach.endpoint };
}

export async function sendTestMessage(
  ctx: ApiContext,
  caller: Caller,
  partnerId: number,
  body: { sender?: string | undefined; organization?: string | undefined },
): Promise<{ message_id: string; status: string; file_name: string }> {
  const runtime = runtimeOf(ctx);
  const conn = freshEm(ctx).getConnection();
  const [partner] = await conn.execute<{ name: string }[]>(
    `select p.name from partner p join as2_remote_profile r on r.partner_id = p.id where p.id = ?`,
    [partnerId],
  );
  if (!partner) throw notFound('AS2 profile');
  const organizations = (
    await conn.execute<{ name: string }[]>(
      `select o.name from organization o join as2_local_profile l on l.organization_id = o.id order by o.name`,
    )
  ).map((o) => o.name);
  const targetsBetween = await routedTargets(ctx.orm);
  const senders = await senderNames(ctx);
  const isSender = (name: string) => senders.some((s) => s.name === name);
  let organization = body.organization;
  if (organization !== undefined) {
    if (!organizations.includes(organization))
      throw validationError({ organization: `No organization with an AS2 profile is named ${organization}` });
  } else {
    const routed = organizations.filter((o) => targetsBetween(o, partner.name).some(isSender));
    if (routed.length === 1) organization = routed[0]!;
    else if (organizations.length === 1) organization = organizations[0]!;
    else
      throw validationError({
        organization:
          organizations.length === 0
            ? 'No organization has an AS2 profile'
            : 'Several organizations could send; name one',
      });
  }
  const sender = chooseSender(senders, body.sender, targetsBetween(organization, partner.name));
  const id = randomUUID();
  const at = ctx.now().toISOString();
  const fileName = `pier-test-${at.replace(/[-:]/g, '').replace(/\..*$/, '')}.txt`;
  const text = `Test message from ${organization} to ${partner.name}, sent by pier at ${at}.\r\n`;
  const kept = await keepBytes(runtime.payloads, { messageId: id, stage: 'unpacked' }, Buffer.from(text));
  try {
    await runtime.dispatcher.acceptAndDispatch({
      source_type: 'api',
      source_name: 'api',
      message: {
        id,
        from: organization,
        to: partner.name,
        file_name: fileName,
        payload: { stage: 'unpacked', ...kept },
      },
      target_hint: sender.name,
      text: `AS2 test message sent by ${caller.actor}`,
    });
  } catch (error) {
    await runtime.payloads.removeMessage(id).catch(() => {});
    throw error;
  }
  const message = await getMessage(freshEm(ctx), id);
  return { message_id: id, status: message.status, file_name: fileName };
}
