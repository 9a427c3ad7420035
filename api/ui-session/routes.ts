/**
 * The sign-in routes of the web UI, all under /ui/auth/: the sign-in page, sign-in at an
 * identity provider (<PUBLIC_URL>/ui/auth/<name>/login and …/callback), the local password,
 * and sign-out. Their answers are HTML pages and redirects, not the API's JSON envelope.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UserSchema } from '../../storage/entities/user.js';
import { verifyPassword } from '../auth/password.js';
import type { ApiContext } from '../context.js';
import { addUser } from '../resources/users/service.js';
import { recordName } from '../schemas/common.js';
import { installFirstRun } from './first-run.js';
import { finishSignIn, startSignIn } from './oidc-flow.js';
import { landingPage, messagePage, signInPage } from './pages.js';
import { FailureLimiter } from './rate-limit.js';
import { endSession, getSessionUser, startSession } from './session.js';
import { limits } from '../../limits/limits.js';

const system = { kind: 'developer' as const, actor: 'system' };

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header(
      'content-security-policy',
      "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'",
    )
    .type('text/html; charset=utf-8')
    .send(body);
}

/**
 * A form post from another site is refused: browsers send Origin on POST. With PUBLIC_URL set,
 * the origin must be its; without, the address the browser used (the request's Host) is this
 * server's, as a same-origin check judges it, so an operator who opens the UI by the server's
 * name or address signs in (the fallback http://localhost:PORT is only a guess).
 */
function sameOrigin(ctx: ApiContext, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (ctx.options.publicUrlGiven) return origin === new URL(ctx.options.publicUrl).origin;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/** The refusal of a form post from another origin, naming the address to use when it is known. */
function wrongOrigin(ctx: ApiContext, reply: FastifyReply, action: 'Sign-in' | 'Sign-out'): FastifyReply {
  const text = ctx.options.publicUrlGiven
    ? `Wrong origin: this server's address is ${ctx.options.publicUrl} (PUBLIC_URL). Open ${ctx.options.publicUrl}/ui and sign in there.`
    : 'Wrong origin: the form was sent from another site.';
  return html(reply, 403, messagePage(`${action} refused`, text));
}

/** A user name for a person provisioned at first sign-in. */
async function provisionedName(ctx: ApiContext, providerName: string, subject: string, hint?: string) {
  const em = ctx.orm.em.fork();
  const cleaned = (hint ?? '')
    .toLowerCase()
    .replace(/@.*$/, '')
    .replace(/[^a-z0-9_-]+/g, '-')
    .slice(0, 64);
  if (recordName.safeParse(cleaned).success && !(await em.findOne(UserSchema, { name: cleaned })))
    return cleaned;
  return `${providerName}-${createHash('sha256').update(subject).digest('hex').slice(0, 10)}`.slice(0, 64);
}

export interface SignInOptions {
  /** Serve a minimal /ui page (only when the web UI has not registered one). */
  landingPage: boolean;
}

export async function installSignIn(
  app: FastifyInstance,
  ctx: ApiContext,
  options: SignInOptions,
): Promise<void> {
  const limiter = new FailureLimiter();
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    const showSignIn = async (request: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
      const providers = (await ctx.identity.all()).filter((p) => p.enabled && p.sign_in);
      // A fresh install has nobody to sign in as; the page says how to make the first administrator.
      const noUsersYet = (await ctx.orm.em.fork().count(UserSchema, {})) === 0;
      const elsewhere =
        ctx.options.publicUrlGiven && new URL(ctx.options.publicUrl).host !== request.headers.host;
      return html(
        reply,
        status,
        signInPage(providers, {
          ...(error === undefined ? {} : { error }),
          noUsersYet,
          ...(noUsersYet && ctx.setupCode?.value ? { setupFile: ctx.setupCode.file } : {}),
          ...(elsewhere ? { addressToUse: ctx.options.publicUrl } : {}),
        }),
      );
    };
    scope.get('/ui/auth/', (request, reply) => showSignIn(request, reply));
    installFirstRun(scope, ctx, { html, sameOrigin: (request) => sameOrigin(ctx, request), limiter });

    scope.get<{ Params: { name: string } }>('/ui/auth/:name/login', async (request, reply) => {
      const provider = await ctx.identity.byName(request.params.name);
      if (!provider || !provider.enabled || !provider.sign_in) {
        return html(reply, 404, messagePage('Sign-in failed', 'No such sign-in'));
      }
      try {
        return await startSignIn(ctx, reply, provider);
      } catch (error) {
        request.log.warn(
          { provider: provider.name, reason: (error as Error).message },
          'Sign-in could not start',
        );
        return html(reply, 502, messagePage('Sign-in failed', 'The identity provider cannot be reached'));
      }
    });

    scope.get<{ Params: { name: string } }>('/ui/auth/:name/callback', async (request, reply) => {
      const provider = await ctx.identity.byName(request.params.name);
      if (!provider || !provider.enabled || !provider.sign_in) {
        return html(reply, 404, messagePage('Sign-in failed', 'No such sign-in'));
      }
      let identity: Awaited<ReturnType<typeof finishSignIn>>;
      try {
        identity = await finishSignIn(ctx, request, reply, provider);
      } catch (error) {
        request.log.info({ provider: provider.name, reason: (error as Error).message }, 'Sign-in refused');
        return html(
          reply,
          400,
          messagePage('Sign-in failed', 'The sign-in could not be completed. Please start again.'),
        );
      }
      const em = ctx.orm.em.fork();
      let user = await em.findOne(UserSchema, {
        oidc_issuer: provider.issuer_url,
        oidc_subject: identity.subject,
      });
      if (!user && provider.auto_provision_role !== '') {
        const name = await provisionedName(ctx, provider.name, identity.subject, identity.preferredName);
        user = await addUser(ctx, system, {
          name,
          oidc_issuer: provider.issuer_url,
          oidc_subject: identity.subject,
          role: provider.auto_provision_role,
        });
      }
      if (!user) {
        request.log.info(
          { provider: provider.name, subject: identity.subject },
          'Sign-in of an unknown person',
        );
        return html(
          reply,
          403,
          messagePage(
            'Not registered',
            `You signed in at ${provider.display_name || provider.name} as ${identity.subject}, but pier does not ` +
              `know you. An administrator can add you with: pier users add NAME --issuer ${provider.issuer_url} --subject ${identity.subject}`,
          ),
        );
      }
      if (!user.enabled) return html(reply, 403, messagePage('Sign-in refused', 'Your user is disabled'));
      await startSession(ctx, request, reply, user.id);
      return reply.redirect('/ui', 303);
    });

    scope.post<{ Body: Record<string, string> | undefined }>('/ui/auth/local', async (request, reply) => {
      if (!sameOrigin(ctx, request)) return wrongOrigin(ctx, reply, 'Sign-in');
      const name = String(request.body?.name ?? '');
      const password = String(request.body?.password ?? '');
      const nameKey = `name:${name}`;
      const addressKey = `ip:${request.ip}`;
      if (
        limiter.blocked(nameKey, limits.signInFailuresPerName) ||
        limiter.blocked(addressKey, limits.signInFailuresPerAddress)
      ) {
        request.log.warn({ name, ip: request.ip }, 'Password sign-in refused: too many failures');
        return showSignIn(request, reply, 'Too many failed attempts. Try again in 15 minutes.', 429);
      }
      const user = name === '' ? null : await ctx.orm.em.fork().findOne(UserSchema, { name });
      const ok = await verifyPassword(password, user?.password_hash);
      if (!ok || !user || !user.enabled) {
        limiter.fail(nameKey);
        limiter.fail(addressKey);
        request.log.info({ name, ip: request.ip }, 'Password sign-in failed');
        return showSignIn(request, reply, 'Wrong user name or password.', 401);
      }
      limiter.clear(nameKey);
      await startSession(ctx, request, reply, user.id);
      return reply.redirect('/ui', 303);
    });

    scope.post('/ui/auth/logout', async (request, reply) => {
      if (!sameOrigin(ctx, request)) return wrongOrigin(ctx, reply, 'Sign-out');
      await endSession(ctx, request, reply);
      return reply.redirect('/ui/auth/', 303);
    });

    if (options.landingPage) {
      scope.get('/ui', async (request, reply) => {
        const user = await getSessionUser(ctx, request);
        if (!user) return reply.redirect('/ui/auth/', 303);
        return html(reply, 200, landingPage(user));
      });
    }
  });
}
