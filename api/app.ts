/**
 * The fastify application: edge rules (CORS, authentication, Content-Type, body limits,
 * envelopes) and every installed module's routes under /api/v1.
 */
import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import { stringify } from 'yaml';
import { installAuth } from './auth/plugin.js';
import type { CredentialKind } from './auth/caller.js';
import type { ApiContext } from './context.js';
import { answerClientError } from './http/client-error.js';
import { installRequestLog, requestIdOf } from './http/request-log.js';
import { ApiRouter, type RegisteredRoute } from './http/router.js';
import { installedModules, type ApiModule } from './modules.js';
import { installEventStreams } from './resources/events/routes.js';
import { answerHealth } from './resources/health/routes.js';
import { answerReady, StoreCheck } from './resources/health/ready.js';
import { installReadinessGate } from './readiness/gate.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { installContentTypeRules } from './plugins/content-type.js';
import { installTransportSecurity } from './plugins/transport-security.js';
import { ApiError } from './errors.js';
import {
  allowedMethodsOf,
  installErrorHandling,
  sendError,
  type AllowedMethods,
} from './plugins/error-handler.js';
import { installErrorMessages } from './schemas/messages.js';
import { installSignIn } from './ui-session/routes.js';
import { webUi } from './ui/index.js';
import { limits } from '../limits/limits.js';

export const apiPrefix = '/api/v1';

export interface BuiltApp {
  app: FastifyInstance;
  /** The API routes registered, for the OpenAPI document and its test. */
  routes: RegisteredRoute[];
  /** Every route fastify registered (method and URL), to check the document against. */
  fastifyRoutes: { method: string; url: string }[];
  openapi: Record<string, unknown>;
}

export async function buildApp(
  ctx: ApiContext,
  options: { logger: Logger | false; modules?: ApiModule[]; credentialKinds?: CredentialKind[] },
): Promise<BuiltApp> {
  installErrorMessages();
  const common = {
    bodyLimit: limits.defaultBodyLimitBytes,
    // Closing ends every connection left: the stop drained them first (api/server.ts), and one
    // that a client holds open without a request must not hold the process (ConnectionDrain).
    forceCloseConnections: true,
    // Fastify's own two lines per request are replaced by one (api/http/request-log.ts).
    // Every line of a request carries its id as `request_id` (api/http/request-log.ts).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: requestIdOf,
    // Long path parameters reach validation (a 400 in the envelope) instead of the router's bare 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    // What Node's parser refuses (a body cut short, headers too large) in the envelope too.
    clientErrorHandler: answerClientError,
    // The router's own refusals (a longer parameter, a URL that does not decode) in the envelope too.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      sendError(
        reply,
        new ApiError('INVALID_INPUT', 'Invalid request', {
          path:
            error.code === 'FST_ERR_MAX_PARAM_LENGTH'
              ? 'A path parameter is longer than 2048 characters'
              : 'The path cannot be decoded',
        }),
      );
    },
  };
  const app: FastifyInstance = options.logger
    ? (Fastify({ ...common, loggerInstance: options.logger as FastifyBaseLogger }) as FastifyInstance)
    : Fastify({ ...common, logger: false });

  const fastifyRoutes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) fastifyRoutes.push({ method, url: route.url });
  });

  installTransportSecurity(app, ctx.options.publicUrl);
  installReadinessGate(app, ctx.readiness);
  const allowed = new Set(ctx.options.allowedOrigins);
  await app.register(cors, {
    origin: (origin, cb) => cb(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Requested-With', 'Last-Event-ID'],
    maxAge: 600,
  });
  // Filled once every route is registered: a path served with other methods answers 405.
  let allowedMethods: AllowedMethods = () => [];
  installErrorHandling(app, (path) => allowedMethods(path));
  installRequestLog(app);
  installAuth(app, {
    kinds: options.credentialKinds ?? [ctx.apiTokens, ctx.jwt],
    developerBuild: ctx.developerBuild,
    protects: (path) => path === '/openapi.yaml' || path === apiPrefix || path.startsWith(`${apiPrefix}/`),
    rolePath: (path) => (path.startsWith(`${apiPrefix}/`) ? path.slice(apiPrefix.length) : undefined),
  });
  installContentTypeRules(app);
  // Uploads (certificates, messages by hand) stream their parts; each route sets its own size limit.
  await app.register(multipart, { throwFileSizeLimit: true, limits: { fields: 20, files: 4, parts: 30 } });
  await installEventStreams(app, ctx);

  const router = new ApiRouter(app, apiPrefix);
  const modules = options.modules ?? installedModules;
  for (const module of modules) module.register(router, ctx);

  await app.register(webUi, { ctx, routes: router.registered, apiPrefix });

  // The OpenAPI document is made on its first request, not at every start: its JSON Schemas and
  // its 1.5 MB of YAML take most of a second of CPU that most processes (each test's server among
  // them) never serve.
  let openapi: Record<string, unknown> | undefined;
  const openapiDocument = () =>
    (openapi ??= buildOpenApiDocument(
      router.registered,
      apiPrefix,
      modules.flatMap((m) => (m.openapi ? [m.openapi] : [])),
    ));
  let yaml: string | undefined;
  const serveDocument = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .type('application/yaml; charset=utf-8')
      .send((yaml ??= stringify(openapiDocument(), { aliasDuplicateObjects: false })));
  app.get(`${apiPrefix}/openapi.yaml`, serveDocument);
  app.get('/openapi.yaml', serveDocument);
  // Load balancers probe the root; the same answer as the API's health.
  app.get('/health', { config: { public: true } }, (_request, reply) => answerHealth(ctx, reply));
  // Readiness for load balancers and service managers (api/readiness/); not an API resource.
  const storeCheck = new StoreCheck(ctx);
  app.get('/ready', { config: { public: true } }, (_request, reply) => answerReady(ctx, storeCheck, reply));
  // Web UI sign-in under /ui/auth/; a stand-in /ui page only until the web UI registers its own.
  await installSignIn(app, ctx, { landingPage: !app.hasRoute({ method: 'GET', url: '/ui' }) });
  allowedMethods = allowedMethodsOf(fastifyRoutes);

  return {
    app,
    routes: router.registered,
    fastifyRoutes,
    get openapi() {
      return openapiDocument();
    },
  };
}
