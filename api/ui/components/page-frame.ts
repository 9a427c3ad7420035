/**
 * The page frame: one object per request that knows who is asking and how to call the API,
 * read the query and the form, and answer with a page or a redirect. A page handler takes it
 * instead of passing deps, request and reply to every helper.
 */
import type { FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { HttpMethod } from '../../http/router.js';
import { loadChoices, type Choices } from '../pickers.js';
import type { AnswerOf } from '../api-answers.js';
import type { ApiCall, ApiOutcome } from '../call-api.js';
import type { Notice, PageOptions, UiRequestContext } from '../layout.js';
import { bodyFields, callApi, mustCall, queryOf, sendPage, seeOther, uiContext } from './request-context.js';
import { type UiDeps } from './request-context.js';

/** How a page answers besides its body: the status and the notices above it (a refusal). */
export interface Answer {
  status?: number;
  notices?: Notice[];
}

/**
 * The parameters of a page's path, as its route declares them to fastify
 * (`app.get<PathOf<'id'>>(`${base}/:id`, …)`): fastify types `request.params` by them.
 */
export interface PathOf<Names extends string> extends RouteGenericInterface {
  Params: { [N in Names]: string };
}

/** A page; `Route` is what its route declares to fastify (`PathOf<'id'>` for `/:id`), nothing by default. */
export class PageRequest<Route extends RouteGenericInterface = RouteGenericInterface> {
  readonly ui: UiRequestContext;
  /** The query string as plain text values, empty ones left out. */
  readonly query: Record<string, string>;

  constructor(
    readonly deps: UiDeps,
    readonly request: FastifyRequest<Route>,
    readonly reply: FastifyReply,
  ) {
    this.ui = uiContext(deps, request, reply);
    this.query = queryOf(request);
  }

  /** The submitted form fields (urlencoded body). */
  get fields(): Record<string, string | string[]> {
    return bodyFields(this.request);
  }

  /** The parameters of the page's path (`p.params.id` for `/:id`), as its route declares them (PathOf). */
  get params(): FastifyRequest<Route>['params'] {
    return this.request.params;
  }

  /**
   * Runs an API route for the signed-in user; a refusal is an outcome, not an exception. The
   * answer is typed by the route's own response schema (api/ui/api-answers.ts).
   */
  call<M extends HttpMethod, U extends string>(
    method: M,
    url: U,
    input?: ApiCall,
  ): Promise<ApiOutcome<AnswerOf<M, U>>>;
  call(method: HttpMethod, url: string, input: ApiCall = {}): Promise<ApiOutcome<unknown>> {
    return callApi(this.deps, this.ui, this.request, this.reply, method, url, input);
  }

  /** An API answer the page cannot do without: a refusal becomes the error page. */
  must<M extends HttpMethod, U extends string>(method: M, url: U, input?: ApiCall): Promise<AnswerOf<M, U>>;
  must(method: HttpMethod, url: string, input: ApiCall = {}): Promise<unknown> {
    return mustCall(this.deps, this.ui, this.request, this.reply, method, url, input);
  }

  /** The choices of the pickers the page draws (parties, instances, certificates…). */
  choices(load: Parameters<typeof loadChoices>[4]): Promise<Choices> {
    return loadChoices(this.deps, this.ui, this.request, this.reply, load);
  }

  /** Sends the page in the shared layout, with the answer's status and notices. */
  send(page: PageOptions, answer: Answer = {}) {
    const notices = [...(page.notices ?? []), ...(answer.notices ?? [])];
    return sendPage(this.reply, this.ui, { ...page, notices }, answer.status ?? 200);
  }

  /** The POST-redirect-GET answer after a successful change. */
  redirect(location: string) {
    return seeOther(this.reply, location);
  }
}

export function openPage<Route extends RouteGenericInterface = RouteGenericInterface>(
  deps: UiDeps,
  request: FastifyRequest<Route>,
  reply: FastifyReply,
): PageRequest<Route> {
  return new PageRequest(deps, request, reply);
}
