/**
 * The web UI under /ui: server-rendered pages served by the same fastify process
 * as the API, running the API's own routes (see call-api.ts), with assets served from the
 * package (htmx, uPlot, our CSS and script), a strict CSP and CSRF protection on forms.
 * Registered by app.ts as one plugin, in its own fastify context, so its form parser, error
 * page and hooks do not touch /api/v1.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { RegisteredRoute } from '../http/router.js';
import { toApiError } from '../plugins/error-handler.js';
import { ApiRoutes } from './call-api.js';
import { parseFormBody } from './form.js';
import { html } from './html.js';
import { assetPrefix, layout, uiPrefix, type NavItem } from './layout.js';
import { refusal } from './components/data.js';
import { NotSignedIn, type UiDeps } from './components/request-context.js';
import { KeptSecrets } from './kept-secrets.js';
import { registerProfilePages } from './pages/as2-profile.js';
import { registerRecordPages } from './pages/records.js';
import { registerPages } from './pages/index.js';
import { csrfField, csrfToken, csrfValid, setSecurityHeaders, uploadFormValid } from './security.js';
import { loadUiUser, resolveUiUser, signInPath } from './current-user.js';
import { secureCookies } from '../ui-session/session.js';
import { eventStreamPath, registerEventRelay } from './live.js';

export interface WebUiOptions {
  ctx: ApiContext;
  /** The API routes as registered, which the pages and forms run. */
  routes: readonly RegisteredRoute[];
  apiPrefix: string;
}

const require = createRequire(import.meta.url);
const packageDir = (name: string, main: string) => path.dirname(require.resolve(`${name}/${main}`));

/** Sections in navigation order, each shown when the API route it needs exists here. */
const allSections: (NavItem & { needs: string })[] = [
  { href: uiPrefix, label: 'Dashboard', needs: '/stats' },
  { href: `${uiPrefix}/messages`, label: 'Messages', needs: '/messages' },
  { href: `${uiPrefix}/partners`, label: 'Partners', needs: '/partners' },
  { href: `${uiPrefix}/organizations`, label: 'Organizations', needs: '/organizations' },
  { href: `${uiPrefix}/wizard`, label: 'Partner set-up', needs: '/as2/remote-profiles' },
  { href: `${uiPrefix}/certificates`, label: 'Certificates', needs: '/certificates' },
  { href: `${uiPrefix}/cem`, label: 'Certificate exchange', needs: '/cem/exchanges' },
  { href: `${uiPrefix}/routes`, label: 'Routes', needs: '/routes' },
  { href: `${uiPrefix}/config`, label: 'Export and import', needs: '/config' },
  { href: `${uiPrefix}/instances`, label: 'Plugin instances', needs: '/services' },
  { href: `${uiPrefix}/notifications`, label: 'Notifications', needs: '/notifications' },
  { href: `${uiPrefix}/audit`, label: 'Audit log', needs: '/audit' },
  { href: `${uiPrefix}/server-log`, label: 'Server log', needs: '/server-log' },
  { href: `${uiPrefix}/settings`, label: 'Settings', needs: '/settings' },
  { href: `${uiPrefix}/oidc-providers`, label: 'Identity providers', needs: '/oidc-providers' },
  { href: `${uiPrefix}/service-accounts`, label: 'Service accounts', needs: '/service-accounts' },
  { href: `${uiPrefix}/api-tokens`, label: 'API tokens', needs: '/api-tokens' },
  { href: `${uiPrefix}/users`, label: 'Users', needs: '/stats' },
];

function errorPage(deps: UiDeps, request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  const user = resolveUiUser(deps.ctx, request);
  if (!user) return reply.code(error.status).type('text/plain; charset=utf-8').send(error.message);
  const ui = {
    user,
    csrf: csrfToken(request, reply, secureCookies(deps.ctx)),
    path: request.url.split('?')[0] ?? '',
    sections: deps.sections,
  };
  return reply
    .code(error.status)
    .type('text/html; charset=utf-8')
    .send(
      layout(ui, {
        title: error.status === 404 ? 'Not found' : 'Something went wrong',
        body: html``,
        notices: [{ kind: 'error', text: refusal(error) }],
      }),
    );
}

export async function webUi(app: FastifyInstance, options: WebUiOptions): Promise<void> {
  const api = new ApiRoutes(options.routes, options.apiPrefix);
  const sections = allSections
    .filter((s) => api.has('GET', s.needs))
    .map(({ href, label }) => ({ href, label }));
  const deps: UiDeps = {
    ctx: options.ctx,
    api,
    sections,
    events: api.has('GET', '/events') ? eventStreamPath : undefined,
    kept: new KeptSecrets(),
  };

  // Forms post application/x-www-form-urlencoded; only the UI's context accepts it.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, parseFormBody(body as string)),
  );

  app.addHook('onRequest', async (request, reply) => {
    setSecurityHeaders(reply);
  });
  app.addHook('preHandler', async (request, reply) => {
    await loadUiUser(options.ctx, request, reply);
    if (request.method !== 'POST') return;
    const body = request.body as Record<string, unknown> | undefined;
    const fromBody = typeof body?.[csrfField] === 'string' ? (body[csrfField] as string) : undefined;
    const fromQuery = (request.query as Record<string, string | undefined>)[csrfField];
    const upload = /^multipart\/form-data/i.test(request.headers['content-type'] ?? '');
    const given = fromBody ?? fromQuery;
    if (!(given === undefined && upload ? uploadFormValid(request) : csrfValid(request, given))) {
      throw new ApiError(
        'FORBIDDEN',
        'The form has expired or came from another site; reload the page and try again',
      );
    }
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof NotSignedIn) {
      // A page asked for without a session goes to sign-in; anything else is refused.
      if (request.method === 'GET') return reply.redirect(signInPath);
      return reply.code(401).type('text/plain; charset=utf-8').send('Sign in to use the web UI');
    }
    const known = toApiError(error, request);
    if (known) return errorPage(deps, request, reply, known);
    request.log.error({ err: error, user: 'web-ui' }, 'web UI request failed');
    return errorPage(deps, request, reply, new ApiError('INTERNAL_ERROR'));
  });
  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    errorPage(deps, request, reply, new ApiError('NOT_FOUND', `No page ${request.url.split('?')[0]}`));
  app.get(`${uiPrefix}/*`, notFound);

  const assets = [
    { prefix: `${assetPrefix}/htmx/`, root: packageDir('htmx.org', 'dist/htmx.min.js') },
    { prefix: `${assetPrefix}/uplot/`, root: packageDir('uplot', 'dist/uPlot.iife.min.js') },
    { prefix: `${assetPrefix}/app/`, root: path.join(import.meta.dirname, 'assets') },
  ];
  for (const [i, a] of assets.entries()) {
    await app.register(fastifyStatic, {
      root: a.root,
      prefix: a.prefix,
      decorateReply: i === 0,
      index: false,
      // Assets change with the package version only.
      maxAge: '1h',
    });
  }

  registerEventRelay(app, deps);
  registerPages(app, deps);
  registerRecordPages(app, deps);
  registerProfilePages(app, deps);
}
