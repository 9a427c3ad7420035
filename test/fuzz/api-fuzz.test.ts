// Covers every operation of the served OpenAPI document (but the event stream, which stays open) under property-based fuzzing on a real server: no 5xx, every answer in the envelope, with a documented status and matching the document's schema for it.
import { Ajv } from 'ajv';
import fc from 'fast-check';
import t from 'tap';
import { parse } from 'yaml';
import { pluginTypes } from '../../actors/index.js';
import { startTestServer } from '../helpers/server.js';
import type { Json } from './arbitraries.js';
import { requestsFor, type FuzzRequest, type Operation } from './requests.js';

/** Runs per operation: small in npm test; PIER_FUZZ_RUNS=500 for a longer sweep (README). */
const runs = Number(process.env.PIER_FUZZ_RUNS ?? 20);
const seed = Number(process.env.PIER_FUZZ_SEED ?? 20261122);

// Every plugin type runs an idle fixture: invented directories, ports and URLs stay unused.
const idle = new URL('./fixtures/idle-actor.ts', import.meta.url);
const server = await startTestServer(t, {
  runtime: { entries: Object.fromEntries(pluginTypes.map((type) => [type, idle])) },
});
let token = server.token;
// Records to find, so some ids and names exist.
await server.call('POST', '/api/v1/organizations', { body: { name: 'acme' } });
await server.call('POST', '/api/v1/partners', { body: { name: 'globex' } });

const doc = parse((await server.call('GET', '/openapi.yaml')).raw) as Json;
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
ajv.addSchema(doc, 'openapi');
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** An operation whose success is an event stream stays open: test/api/events.test.ts covers it over HTTP. */
const streams = (op: Json) => {
  const success = (op.responses as Record<string, Json> | undefined)?.['200'];
  return Boolean((success?.content as Record<string, unknown> | undefined)?.['text/event-stream']);
};

const operations: Operation[] = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(
  ([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => !streams(op))
      .map(([method, op]) => ({ path, method, op })),
);

/** A request that gets no answer within this long is a finding too (and keeps the suite bounded). */
const answerWithinMs = 15_000;

async function send(request: FuzzRequest) {
  const headers = { ...request.headers };
  headers.authorization ??= `Bearer ${token}`;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${answerWithinMs} ms`)), answerWithinMs);
  });
  try {
    return await Promise.race([
      server.app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers,
        ...(request.payload !== undefined ? { payload: request.payload } : {}),
      }),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What is wrong with an answer, or undefined when it is as the document says. */
function problemOf(
  operation: Operation,
  status: number,
  contentType: string,
  raw: string,
): string | undefined {
  if (status >= 500) return `answered ${status}: ${raw.slice(0, 500)}`;
  const responses = operation.op.responses as Record<string, Json>;
  const documented = responses[String(status)];
  if (!documented) return `answered ${status}, which the document does not list: ${raw.slice(0, 300)}`;
  const media = Object.keys((documented.content ?? {}) as Json);
  if (!contentType.startsWith('application/json')) {
    // A raw answer (a PEM file, a payload, the document): its media type is documented.
    return media.some((m) => contentType.startsWith(m)) || status === 204
      ? undefined
      : `answered ${contentType}`;
  }
  let body: Json;
  try {
    body = JSON.parse(raw) as Json;
  } catch {
    return `not JSON: ${raw.slice(0, 200)}`;
  }
  if (!media.includes('application/json')) return undefined;
  const schemaPath = pointer(
    'paths',
    operation.path,
    operation.method,
    'responses',
    String(status),
    'content',
    'application/json',
    'schema',
  );
  // Every answer is in the envelope, except a raw one the document describes otherwise (GET /health).
  const documentedSchema = (((documented.content as Json)['application/json'] as Json).schema ?? {}) as Json;
  const enveloped =
    typeof documentedSchema.$ref === 'string' || 'data' in ((documentedSchema.properties ?? {}) as Json);
  if (enveloped && (!('data' in body) || !('error' in body)))
    return `not in the envelope: ${raw.slice(0, 200)}`;
  const validate = ajv.getSchema(`openapi#/${schemaPath}`);
  if (validate && !validate(body))
    return `does not match the document for ${status}: ${ajv.errorsText(validate.errors)} in ${raw.slice(0, 300)}`;
  return undefined;
}

t.test(`every operation, ${runs} requests each (seed ${seed})`, async (t) => {
  t.ok(operations.length > 50, `${operations.length} operations in the document`);
  for (const [index, operation] of operations.entries()) {
    const name = `${operation.method.toUpperCase()} ${operation.path}`;
    let failure: string | undefined;
    const started = Date.now();
    try {
      await fc.assert(
        fc.asyncProperty(requestsFor(operation, doc), async (request) => {
          const answer = await send(request).catch((error: Error) => error);
          if (answer instanceof Error) {
            failure ??= `${request.method} ${request.url.slice(0, 300)}: ${answer.message}`;
            return false;
          }
          // The fuzzer may revoke the token it uses, or disable its account: make a new one.
          if (answer.statusCode === 401 && request.headers.authorization === undefined)
            token = await server.newToken();
          const problem = problemOf(
            operation,
            answer.statusCode,
            String(answer.headers['content-type'] ?? ''),
            answer.body,
          );
          if (problem) {
            failure ??= `${request.method} ${request.url.slice(0, 300)} ${JSON.stringify(request.headers)} ${request.payload?.slice(0, 300) ?? ''}: ${problem}`;
            return false;
          }
          return true;
        }),
        { seed: seed + index, numRuns: runs, endOnFailure: true },
      );
    } catch (error) {
      failure ??= (error as Error).message.slice(0, 1000);
    }
    if (failure) t.fail(`${name}: ${failure}`);
    else t.pass(`${name} (${Date.now() - started} ms)`);
  }
});
