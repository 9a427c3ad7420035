/**
 * The first-run page of a fresh install (/ui/setup): with the one-time setup code
 * (setup-code.ts), whoever runs the server chooses the first administrator's name and password
 * in the browser and is signed in. Once a user exists the page and the code stop working.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UserSchema } from '../../storage/entities/user.js';
import type { ApiContext } from '../context.js';
import { ApiError } from '../errors.js';
import { setUserPassword } from '../resources/users/service.js';
import { recordName } from '../schemas/common.js';
import { messagePage, setupPage } from './pages.js';
import type { FailureLimiter } from './rate-limit.js';
import { startSession } from './session.js';
import type { SetupCode } from './setup-code.js';
import { limits } from '../../limits/limits.js';

export interface FirstRunRoutes {
  html(reply: FastifyReply, status: number, body: string): FastifyReply;
  /** The form post came from this server's own pages (routes.ts). */
  sameOrigin(request: FastifyRequest): boolean;
  limiter: FailureLimiter;
}

const noUsers = async (ctx: ApiContext) => (await ctx.orm.em.fork().count(UserSchema, {})) === 0;

/** Setups in this process, one after another, so two browsers cannot both make a first administrator. */
let queue: Promise<unknown> = Promise.resolve();

export function installFirstRun(scope: FastifyInstance, ctx: ApiContext, routes: FirstRunRoutes): void {
  const { html, limiter } = routes;
  const done = (reply: FastifyReply) =>
    html(
      reply,
      410,
      messagePage('Setup done', 'An administrator exists already: sign in with your name and password.'),
    );
  /** The code still works: a fresh install, no user yet. */
  const open = async (): Promise<SetupCode | null> => {
    const code = ctx.setupCode;
    if (!code || code.value === null) return null;
    if (await noUsers(ctx)) return code;
    // Someone made a user another way (the CLI, another node): the code goes.
    await code.spend();
    return null;
  };

  scope.get('/ui/setup', async (_request, reply) => {
    const code = await open();
    if (!code) return done(reply);
    return html(reply, 200, setupPage({ setupFile: code.file }));
  });

  scope.post<{ Body: Record<string, string> | undefined }>('/ui/setup', async (request, reply) => {
    if (!routes.sameOrigin(request))
      return html(
        reply,
        403,
        messagePage('Setup refused', 'Wrong origin: the form was sent from another site.'),
      );
    const body = request.body ?? {};
    const name = String(body.name ?? '').trim();
    const addressKey = `setup:${request.ip}`;
    const refuse = (status: number, errors: Record<string, string>, file: string) =>
      html(reply, status, setupPage({ name, errors, setupFile: file }));
    const work = queue.then(async () => {
      const code = await open();
      if (!code) return done(reply);
      if (limiter.blocked(addressKey, limits.firstRunWrongCodesPerAddress))
        return refuse(429, { _form: 'Too many wrong setup codes. Try again in 15 minutes.' }, code.file);
      if (!code.matches(String(body.code ?? ''))) {
        limiter.fail(addressKey);
        request.log.warn({ ip: request.ip }, 'first-run setup refused: wrong setup code');
        return refuse(
          403,
          { code: 'Not the setup code: copy it from the console or the file named above' },
          code.file,
        );
      }
      const errors: Record<string, string> = {};
      if (!recordName.safeParse(name).success)
        errors.name = 'Letters, digits, - and _, at most 64 characters';
      if (String(body.password ?? '') !== String(body.repeat ?? '')) errors.repeat = 'Not the same password';
      if (Object.keys(errors).length > 0) return refuse(400, errors, code.file);
      try {
        const { user } = await setUserPassword(
          ctx,
          { kind: 'developer', actor: 'first-run setup' },
          name,
          String(body.password),
        );
        await code.spend();
        limiter.clear(addressKey);
        request.log.info({ user: name }, 'first administrator created at /ui/setup');
        await startSession(ctx, request, reply, user.id);
        return reply.redirect('/ui', 303);
      } catch (error) {
        if (error instanceof ApiError && error.details)
          return refuse(400, error.details as Record<string, string>, code.file);
        throw error;
      }
    });
    queue = work.catch(() => undefined);
    return work;
  });
}
