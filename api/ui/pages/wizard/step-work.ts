/**
 * One wizard step is one form submission that may create several records (a certificate, an
 * organization and its profile; instances and routes). Each record is made by its own API
 * route, so it is accepted or refused exactly as the API would; the form's fields are first
 * read by the same schemas, so every wrong field is named in one answer. When a later record
 * is refused, the ones this submission made are deleted again, newest first, so a refused
 * step leaves nothing half made (docs/decisions/wizard-one-submission-per-step.md).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { checkRole, requiredRole } from '../../../auth/roles.js';
import { ApiError } from '../../../errors.js';
import type { HttpMethod } from '../../../http/router.js';
import { toApiError } from '../../../plugins/error-handler.js';
import { fieldProblems } from '../../../validation.js';
import type { ApiCall } from '../../call-api.js';
import type { AnswerOf } from '../../api-answers.js';
import type { FormState } from '../../form.js';
import type { Answer } from '../../components/index.js';
import { html } from '../../html.js';
import type { Notice, UiRequestContext } from '../../layout.js';
import { refusal } from '../../components/data.js';
import { callApi, type UiDeps } from '../../components/request-context.js';

/** Where a record's answer is drawn: its API properties onto the form's fields. */
export interface Placement {
  /** The record in words, before a problem no field shows: "AS2 profile". */
  label: string;
  /** API property → form field; a property not named here is listed above the form. */
  fields: Record<string, string>;
}

export class StepWork {
  /** Problems by form field (or `<label>: <property>` for those no field shows). */
  readonly errors: Record<string, string> = {};
  readonly notices: Notice[] = [];
  status = 200;
  readonly #undo: { what: string; run: () => Promise<void> }[] = [];

  constructor(
    readonly deps: UiDeps,
    readonly ui: UiRequestContext,
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
  ) {}

  get failed(): boolean {
    return this.status >= 400;
  }

  /** Puts an API refusal beside the fields it names, the rest above the form. */
  place(error: ApiError, where: Placement): void {
    this.status = Math.max(this.status, error.status);
    const entries = Object.entries(error.details ?? {}).filter(([, v]) => typeof v === 'string');
    for (const [key, text] of entries) {
      const fieldName = where.fields[key] ?? (key === '_form' ? `${where.label}` : `${where.label}: ${key}`);
      if (!(fieldName in this.errors)) this.errors[fieldName] = text as string;
    }
    if (error.code !== 'INVALID_INPUT' || entries.length === 0) {
      this.notices.push({ kind: 'error', text: html`${where.label}: ${refusal(error)}` });
    }
  }

  /** A problem the wizard finds itself (a choice left empty), on one field. */
  problem(fieldName: string, text: string): void {
    this.status = Math.max(this.status, 400);
    if (!(fieldName in this.errors)) this.errors[fieldName] = text;
  }

  /**
   * Reads a body with the schema its API route reads it with, before anything is made: the
   * same messages, for every record of the step at once. Properties the wizard fills in after
   * an earlier record exists (the organization's id) are left out of the check.
   */
  precheck(
    schema: z.ZodType | undefined,
    body: Record<string, unknown>,
    where: Placement,
    later: string[] = [],
  ) {
    if (!schema) return;
    const { problems } = fieldProblems(schema as z.ZodObject, body);
    for (const key of later) delete problems[key];
    if (Object.keys(problems).length > 0) {
      this.place(new ApiError('INVALID_INPUT', 'Validation failed', problems), where);
    }
  }

  /**
   * Runs an API route as the signed-in user, its answer typed by the route's schema
   * (api/ui/api-answers.ts); a refusal is placed and answers undefined.
   */
  async call<M extends HttpMethod, U extends string>(
    method: M,
    url: U,
    input: ApiCall,
    where: Placement,
  ): Promise<AnswerOf<M, U> | undefined> {
    try {
      checkRole(this.ui.user.caller, requiredRole(method, url));
    } catch (error) {
      this.place(error as ApiError, where);
      return undefined;
    }
    const outcome = await callApi(this.deps, this.ui, this.request, this.reply, method, url, input);
    if (outcome.ok) return outcome.data;
    this.place(outcome.error, where);
    return undefined;
  }

  /** Runs a service the UI calls directly (an upload), placing an API refusal like `call`. */
  async direct<T>(
    method: HttpMethod,
    url: string,
    work: () => Promise<T>,
    where: Placement,
    onRefusal?: (error: ApiError) => void,
  ): Promise<T | undefined> {
    try {
      checkRole(this.ui.user.caller, requiredRole(method, url));
      return await work();
    } catch (error) {
      const known = toApiError(error, this.request);
      if (!known) throw error;
      onRefusal?.(known);
      this.place(known, where);
      return undefined;
    }
  }

  /** How to take back a record this submission made, should a later one be refused. */
  made(what: string, method: 'DELETE', url: string, params: Record<string, string>): void {
    this.#undo.push({
      what,
      run: async () => {
        const outcome = await callApi(this.deps, this.ui, this.request, this.reply, method, url, { params });
        if (!outcome.ok) throw outcome.error;
      },
    });
  }

  /** Something else to take back (a directory made for a file poller). */
  madeOther(what: string, run: () => Promise<void>): void {
    this.#undo.push({ what, run });
  }

  /** Deletes what this submission made, newest first; says so when something could not be. */
  /**
   * Takes back what the step made, and gives the step's page what was sent (the values to keep)
   * with the problems beside their fields, and the status and notices to answer with.
   */
  async refusal(values: FormState['values']): Promise<[FormState, Answer]> {
    await this.takeBack();
    return [
      { values, errors: this.errors },
      { status: this.status, notices: this.notices },
    ];
  }

  async takeBack(): Promise<void> {
    for (const step of this.#undo.reverse()) {
      try {
        await step.run();
      } catch (error) {
        const known = toApiError(error, this.request);
        this.request.log.error({ err: error }, `the wizard could not take back ${step.what}`);
        this.notices.push({
          kind: 'error',
          text: `The step was refused, and ${step.what}, which it had made, could not be deleted again${
            known ? `: ${known.message}` : ''
          }. Delete it on its own page.`,
        });
      }
    }
    this.#undo.length = 0;
  }
}
