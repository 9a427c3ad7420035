/**
 * The one validation path (docs/api/conventions.md#create-update-delete: the API and the web UI validate alike): a page or form runs the API route itself, as
 * registered in /api/v1, with its own zod schemas for path, query and body and its own
 * handler (which calls the record service). So a submission is accepted or refused by the
 * web UI exactly as by the API, with the same messages; only the presentation differs.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller.js';
import type { ApiError } from '../errors.js';
import type { HttpMethod, RegisteredRoute } from '../http/router.js';
import { checkAnswers } from './api-answers.js';
import { toApiError } from '../plugins/error-handler.js';
import { parseOrThrow, requireObjectBody } from '../validation.js';

export interface ApiCall {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

export type ApiOutcome<T> = { ok: true; data: T } | { ok: false; error: ApiError };

export class ApiRoutes {
  private readonly byKey = new Map<string, RegisteredRoute>();

  constructor(
    routes: readonly RegisteredRoute[],
    private readonly prefix: string,
  ) {
    for (const r of routes) this.byKey.set(`${r.method} ${r.url}`, r);
    checkAnswers(routes, prefix);
  }

  has(method: HttpMethod, url: string): boolean {
    return this.byKey.has(`${method} ${this.prefix}${url}`);
  }

  definition(method: HttpMethod, url: string) {
    return this.byKey.get(`${method} ${this.prefix}${url}`)?.definition;
  }

  /** The body schema of a route: the router's, or the one a handler applies itself (`bodyDoc`). */
  bodySchema(method: HttpMethod, url: string) {
    const definition = this.definition(method, url);
    return definition?.body ?? definition?.bodyDoc;
  }

  /**
   * A query read by the route's own schema, refused with the API's messages: for a page that
   * lists through the service itself (the messages list, which counts differently, see
   * storage/repositories/messages.ts CountMode).
   */
  parseQuery<T>(
    method: HttpMethod,
    url: string,
    query: Record<string, string>,
    request: FastifyRequest,
  ): ApiOutcome<T> {
    const def = this.definition(method, url);
    if (!def?.query) throw new Error(`The web UI reads the query of ${method} ${url}, which has none`);
    try {
      return { ok: true, data: parseOrThrow(def.query, query, 'Unknown parameter') as T };
    } catch (error) {
      const known = toApiError(error, request);
      if (known) return { ok: false, error: known };
      throw error;
    }
  }

  /**
   * Runs `METHOD url` (fastify style, below the prefix) as the API would: parameters, query
   * and body through the route's schemas, then its handler. Handlers that read the request
   * themselves (plugin configurations) see `body` as the request body. The answer is typed by
   * the route's schema where the page calls it (callApi, api/ui/api-answers.ts).
   */
  async call(
    method: HttpMethod,
    url: string,
    input: ApiCall,
    caller: Caller,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<ApiOutcome<unknown>> {
    const route = this.byKey.get(`${method} ${this.prefix}${url}`);
    if (!route) throw new Error(`The web UI calls ${method} ${url}, which the API does not have`);
    const def = route.definition;
    try {
      const params = def.params ? parseOrThrow(def.params, input.params ?? {}) : undefined;
      const query = def.query ? parseOrThrow(def.query, input.query ?? {}, 'Unknown parameter') : undefined;
      const body = def.body ? parseOrThrow(def.body, requireObjectBody(input.body)) : undefined;
      const apiRequest = Object.create(request, {
        body: { value: input.body },
        query: { value: input.query ?? {} },
        params: { value: input.params ?? {} },
        caller: { value: caller },
      }) as FastifyRequest;
      const data: unknown = await def.handler({ params, query, body, caller, request: apiRequest, reply });
      return { ok: true, data };
    } catch (error) {
      const known = toApiError(error, request);
      if (known) return { ok: false, error: known };
      throw error;
    }
  }
}
