/**
 * Declaring an API route once: its zod schemas validate the request, shape the answer and
 * feed the OpenAPI document, so the document describes exactly what is registered.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import fastJsonStringify from 'fast-json-stringify';
import { z } from 'zod';
import type { Caller } from '../auth/caller.js';
import type { ErrorCode } from '../errors.js';
import { parseOrThrow, requireObjectBody } from '../validation.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** What a body-changing request must carry (docs/api/conventions.md#request-headers). */
export type Consumes = 'json' | 'multipart';

type Schema = z.ZodType | undefined;
type Out<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteContext<B extends Schema, Q extends Schema, P extends Schema> {
  body: Out<B>;
  query: Out<Q>;
  params: Out<P>;
  caller: Caller;
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface RouteDefinition<B extends Schema, Q extends Schema, P extends Schema> {
  method: HttpMethod;
  /** Path below the API prefix, fastify style (`/organizations/:id`). */
  url: string;
  summary: string;
  tag: string;
  /** Served without authentication (only GET /health). */
  public?: boolean;
  body?: B;
  /**
   * A body the handler reads itself (its schema depends on a parameter, or it is a streamed
   * multipart upload): documented in OpenAPI only.
   */
  bodyDoc?: z.ZodType;
  query?: Q;
  params?: P;
  consumes?: Consumes;
  /**
   * Reads an `application/json` body itself instead of the app's parser (which reads it whole):
   * the route is registered in a scope of its own, so no other route's parser changes. `done`
   * runs once the answer is sent, whatever happened, with what `parse` gave.
   */
  jsonBody?: {
    parse(request: FastifyRequest, payload: Readable): Promise<unknown>;
    done(body: unknown): Promise<void>;
  };
  /** Request body limit in bytes, when it differs from the default 1 MiB. */
  bodyLimit?: number;
  /** Success status; 204 sends no body. */
  status?: 200 | 201 | 204;
  /** Schema of `data` in the success envelope, for the OpenAPI document. */
  response?: z.ZodType;
  /** Further success answers a handler may send itself (a 200 beside the usual 201), for the document. */
  otherResponses?: { status: 200 | 201; description: string; response: z.ZodType }[];
  /** A route that answers by itself (not the JSON envelope), with this media type. */
  raw?: {
    mediaType: string;
    description: string;
    /** Other media types the route answers with on request, each with its component schema's name. */
    alternatives?: Record<string, string>;
  };
  /** Another media type the route answers with on request instead of its envelope (a file), for the document. */
  alsoAnswers?: { mediaType: string; description: string };
  /** Error codes the route may answer with beyond the ones every route has. */
  errors?: ErrorCode[];
  handler(ctx: RouteContext<B, Q, P>): Promise<unknown>;
}

export interface RegisteredRoute {
  method: HttpMethod;
  /** Full path with the prefix, fastify style. */
  url: string;
  definition: RouteDefinition<Schema, Schema, Schema>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    public?: boolean;
    consumes?: Consumes;
  }
}

/** JSON Schema of a success envelope, for fast-json-stringify. */
function envelopeSchema(data: z.ZodType): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      data: z.toJSONSchema(data, { target: 'draft-07', io: 'output', unrepresentable: 'any' }),
      error: { type: 'null' },
    },
  };
}

/**
 * The success envelope's serializer, compiled from the route's response schema the first time the
 * route answers. A compiled serializer is several times faster than JSON.stringify on large lists;
 * compiling all of them as the app starts (fastify's way with `schema.response`) took a third of a
 * pier start's CPU (about 0.6 s of 1.8 on a 2-core machine) for routes most processes never answer.
 */
function lazyEnvelopeSerializer(data: z.ZodType): (payload: unknown) => string {
  let compiled: ((payload: unknown) => string) | undefined;
  return (payload) => {
    compiled ??= fastJsonStringify(envelopeSchema(data));
    return compiled(payload);
  };
}

export class ApiRouter {
  readonly registered: RegisteredRoute[] = [];

  constructor(
    private readonly app: FastifyInstance,
    readonly prefix: string,
  ) {}

  add<B extends Schema = undefined, Q extends Schema = undefined, P extends Schema = undefined>(
    definition: RouteDefinition<B, Q, P>,
  ): void {
    const url = `${this.prefix}${definition.url}`;
    const status = definition.status ?? 200;
    this.registered.push({
      method: definition.method,
      url,
      definition: definition as unknown as RouteDefinition<Schema, Schema, Schema>,
    });
    const serialize =
      definition.response && !definition.raw && status !== 204
        ? lazyEnvelopeSerializer(definition.response)
        : undefined;
    const route = (app: FastifyInstance) =>
      app.route({
        method: definition.method,
        url,
        config: {
          public: definition.public ?? false,
          consumes: definition.consumes ?? 'json',
        },
        ...(definition.bodyLimit !== undefined ? { bodyLimit: definition.bodyLimit } : {}),
        handler: async (request, reply) => {
          const params = (
            definition.params ? parseOrThrow(definition.params, request.params) : undefined
          ) as Out<P>;
          const query = (
            definition.query ? parseOrThrow(definition.query, request.query, 'Unknown parameter') : undefined
          ) as Out<Q>;
          const body = (
            definition.body ? parseOrThrow(definition.body, requireObjectBody(request.body)) : undefined
          ) as Out<B>;
          const result = await definition.handler({
            body,
            query,
            params,
            caller: request.caller,
            request,
            reply,
          });
          if (reply.sent || definition.raw) return reply;
          if (status === 204) return reply.code(204).send();
          if (!serialize) return reply.code(status).send({ data: result, error: null });
          return reply
            .code(status)
            .type('application/json; charset=utf-8')
            .serializer(serialize)
            .send({ data: result, error: null });
        },
      });
    const own = definition.jsonBody;
    if (!own) return void route(this.app);
    void this.app.register(async (scope) => {
      scope.removeContentTypeParser('application/json');
      scope.addContentTypeParser('application/json', (request: FastifyRequest, payload: Readable) =>
        own.parse(request, payload),
      );
      scope.addHook('onResponse', async (request) => {
        if (request.body !== undefined) await own.done(request.body);
      });
      route(scope);
    });
  }
}
