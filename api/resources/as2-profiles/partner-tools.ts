/**
 * POST /as2/remote-profiles/{id}/check-connection and /test-message (docs/api/as2-profiles.md). The check is
 * made by the named sender's running instance, with its timeout and the partner profile's TLS
 * trust and HTTP authentication, exactly as it would connect; it sends no AS2 message.
 * The test message is a small generated text file accepted and delivered by the normal flow.
 */
import { randomUUID } from 'node:crypto';
import { keepBytes } from '../../../storage/payloads/inline.js';
import { organizationsWithAs2Profile, partnerWithAs2Profile } from '../../../storage/repositories/parties.js';
import { configNamesOfType } from '../../../storage/repositories/plugin-configs.js';
import { as2SenderType } from '../../../actors/as2-sender/config.js';
import {
  type CheckAnswer,
  checkConnectionTo,
  reachOfPartner,
  routedTargets,
} from '../../../runtime/index.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, runtimeOf, type ApiContext } from '../../context.js';
import { notFound, validationError } from '../../errors.js';
import { getMessage } from '../messages/service.js';

/** The configured AS2 senders; each check is made by the sender's running instance, with its own settings. */
async function senderNames(ctx: ApiContext): Promise<{ name: string }[]> {
  const names = await configNamesOfType(freshEm(ctx), as2SenderType.type);
  return names.map((name) => ({ name }));
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
  // A sender not running here is 503 SENDER_NOT_RUNNING (api/runtime-errors.ts).
  const answer = await checkConnectionTo(runtimeOf(ctx).supervisor, sender.name, reach, ctx.now());
  return { ...answer, sender: sender.name, endpoint: reach.endpoint };
}

export async function sendTestMessage(
  ctx: ApiContext,
  caller: Caller,
  partnerId: number,
  body: { sender?: string | undefined; organization?: string | undefined },
): Promise<{ message_id: string; status: string; file_name: string }> {
  const runtime = runtimeOf(ctx);
  const em = freshEm(ctx);
  const partner = await partnerWithAs2Profile(em, partnerId);
  if (partner === undefined) throw notFound('AS2 profile');
  const organizations = await organizationsWithAs2Profile(em);
  const targetsBetween = await routedTargets(ctx.orm);
  const senders = await senderNames(ctx);
  const isSender = (name: string) => senders.some((s) => s.name === name);
  let organization = body.organization;
  if (organization !== undefined) {
    if (!organizations.includes(organization))
      throw validationError({ organization: `No organization with an AS2 profile is named ${organization}` });
  } else {
    const routed = organizations.filter((o) => targetsBetween(o, partner).some(isSender));
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
  const sender = chooseSender(senders, body.sender, targetsBetween(organization, partner));
  const id = randomUUID();
  const at = ctx.now().toISOString();
  const fileName = `pier-test-${at.replace(/[-:]/g, '').replace(/\..*$/, '')}.txt`;
  const text = `Test message from ${organization} to ${partner}, sent by pier at ${at}.\r\n`;
  const kept = await keepBytes(runtime.payloads, { messageId: id, stage: 'unpacked' }, Buffer.from(text));
  try {
    await runtime.dispatcher.acceptAndDispatch({
      source_type: 'api',
      source_name: 'api',
      message: {
        id,
        from: organization,
        to: partner,
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
