/**
 * The OpenAPI document, assembled once at startup from the routes actually registered and
 * the parts modules contribute (component schemas such as plugin configurations).
 */
import { z } from 'zod';
import { serviceName, serviceVersion } from '../../runtime/index.js';
import { errorCodes, errorTable, type ErrorCode } from '../errors.js';
import type { RegisteredRoute } from '../http/router.js';
import { parameterKey } from '../schemas/common.js';
import { addFieldTexts } from '../schemas/field-text.js';

type Json = Record<string, unknown>;

/** What a module adds beyond its routes: named component schemas. */
export interface OpenApiContribution {
  schemas?: Record<string, z.ZodType>;
  /** Requests the server sends (OpenAPI 3.1 `webhooks`): a name, what it is, and its JSON body. */
  webhooks?: Record<
    string,
    { summary: string; description: string; headers: Record<string, string>; body: z.ZodType }
  >;
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  return z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Json;
}

function openApiPath(url: string, prefix: string): string {
  return url.slice(prefix.length).replace(/:([A-Za-z_]+)/g, '{$1}');
}

const authCodes: ErrorCode[] = [
  'MISSING_AUTH_HEADER',
  'INVALID_AUTH_HEADER',
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
];

/** Error statuses every route may answer, and those that depend on what it takes. */
function errorResponses(route: RegisteredRoute): Json {
  const d = route.definition;
  const codes = new Set<ErrorCode>(['INTERNAL_ERROR']);
  if (!d.public) authCodes.forEach((c) => codes.add(c));
  // Every authenticated route is subject to the caller's role (api/auth/roles.ts).
  if (!d.public) codes.add('INSUFFICIENT_ROLE');
  // Any request can be refused as malformed (a bad URL, a bad header value, an unknown parameter).
  codes.add('INVALID_INPUT');
  if (d.params) codes.add('NOT_FOUND');
  if (route.method !== 'GET') {
    codes.add('UNSUPPORTED_MEDIA_TYPE');
    codes.add('PAYLOAD_TOO_LARGE');
  }
  if (d.consumes === 'multipart') codes.add('MISSING_HEADER');
  for (const c of d.errors ?? []) codes.add(c);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes)
    byStatus.set(errorTable[c].status, [...(byStatus.get(errorTable[c].status) ?? []), c]);
  const out: Json = {};
  for (const [status, list] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: list.join(', '),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return out;
}

/**
 * Uploads (multipart forms) need X-Requested-With, any value: a browser sends it only from a
 * page allowed by CORS, so another site cannot post a form with the user's session (400 MISSING_HEADER).
 */
const requestedWithHeader: Json = {
  name: 'X-Requested-With',
  in: 'header',
  required: true,
  schema: { type: 'string', minLength: 1 },
  example: 'XMLHttpRequest',
  description:
    'Required on uploads, any value (for example XMLHttpRequest): without it the answer is 400 MISSING_HEADER',
};

function parameters(route: RegisteredRoute): Json[] {
  const out: Json[] = [];
  const add = (schema: z.ZodType | undefined, where: 'path' | 'query') => {
    if (!schema) return;
    const js = jsonSchema(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      const { description: text, [parameterKey]: value, ...rest } = prop;
      // A parameter read from text is documented as the value it stands for (an integer id).
      const { description: valueText, ...schema } = (value as Json | undefined) ?? rest;
      const description = valueText ?? text;
      out.push({
        name,
        in: where,
        required: where === 'path' || (js.required ?? []).includes(name),
        schema,
        ...(description ? { description } : {}),
      });
    }
  };
  add(route.definition.params, 'path');
  add(route.definition.query, 'query');
  if (route.definition.consumes === 'multipart') out.push(requestedWithHeader);
  return out;
}

function successResponse(route: RegisteredRoute): Json {
  const d = route.definition;
  const status = String(d.status ?? 200);
  if (d.status === 204) return { [status]: { description: 'Done; no body' } };
  if (d.raw) {
    return {
      [status]: {
        description: d.raw.description,
        content: {
          [d.raw.mediaType]: { schema: d.response ? jsonSchema(d.response, 'output') : {} },
          ...Object.fromEntries(
            Object.entries(d.raw.alternatives ?? {}).map(([type, name]) => [
              type,
              { schema: { $ref: `#/components/schemas/${name}` } },
            ]),
          ),
        },
      },
    };
  }
  const envelope = (description: string, schema: z.ZodType | undefined) => ({
    description,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['data', 'error'],
          properties: {
            data: schema ? jsonSchema(schema, 'output') : {},
            error: { type: 'object', nullable: true, enum: [null] },
          },
        },
      },
    },
  });
  const out: Json = { [status]: envelope('Success', d.response) };
  // A route that answers a file on request (the configuration file as YAML) besides its envelope.
  if (d.alsoAnswers)
    (out[status] as { content: Json }).content[d.alsoAnswers.mediaType] = {
      schema: { type: 'string', description: d.alsoAnswers.description },
    };
  for (const other of d.otherResponses ?? [])
    out[String(other.status)] = envelope(other.description, other.response);
  return out;
}

function operationId(method: string, path: string): string {
  const words = path
    .replace(/[{}]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

export function buildOpenApiDocument(
  routes: RegisteredRoute[],
  prefix: string,
  contributions: OpenApiContribution[],
): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const d = route.definition;
    const path = openApiPath(route.url, prefix);
    const operation: Json = {
      tags: [d.tag],
      summary: d.summary,
      operationId: operationId(route.method, path),
      parameters: parameters(route),
      responses: { ...successResponse(route), ...errorResponses(route) },
    };
    if (d.public) operation.security = [];
    const body = d.body ?? d.bodyDoc;
    if (body) {
      const media = d.consumes === 'multipart' ? 'multipart/form-data' : 'application/json';
      operation.requestBody = {
        required: true,
        content: { [media]: { schema: jsonSchema(body, 'input') } },
      };
    } else if (route.method !== 'GET') {
      // docs/api/conventions.md#request-headers: a POST or DELETE without a body still says Content-Type: application/json (else 415).
      operation.requestBody = {
        required: false,
        description:
          'No body is read, but the request must carry Content-Type: application/json (docs/api/conventions.md#request-headers); otherwise 415',
        content: { 'application/json': { schema: { type: 'object' } } },
      };
    }
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operation };
  }
  const schemas: Json = {
    ErrorEnvelope: {
      type: 'object',
      required: ['data', 'error'],
      properties: {
        data: { type: 'object', nullable: true, enum: [null] },
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', enum: errorCodes },
            message: { type: 'string' },
            details: { type: 'object', additionalProperties: true },
          },
        },
      },
    },
  };
  for (const c of contributions) {
    for (const [name, schema] of Object.entries(c.schemas ?? {})) schemas[name] = jsonSchema(schema, 'input');
  }
  const webhooks: Json = {};
  for (const c of contributions) {
    for (const [name, hook] of Object.entries(c.webhooks ?? {})) {
      webhooks[name] = {
        post: {
          summary: hook.summary,
          description: hook.description,
          operationId: `webhook-${name}`,
          parameters: Object.entries(hook.headers).map(([header, description]) => ({
            name: header,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(hook.body, 'output') } },
          },
          responses: {
            '2XX': { description: 'Received; any other answer is retried (5xx, 408, 429) or failed' },
          },
        },
      };
    }
  }
  // Labels and help of the properties, the words the web forms print beside the same fields.
  addFieldTexts(paths);
  addFieldTexts(schemas);
  return {
    // 3.1 for `webhooks`, the notifications the server posts.
    openapi: '3.1.0',
    info: { title: `${serviceName} REST API`, version: serviceVersion },
    servers: [{ url: prefix }],
    security: [{ apiToken: [] }, { bearerAuth: [] }],
    paths,
    ...(Object.keys(webhooks).length > 0 ? { webhooks } : {}),
    components: {
      securitySchemes: {
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'API token of a local service account (pier_…)',
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'Access token (JWT) of an enabled identity provider, chosen by its iss; see /oidc-providers',
        },
      },
      schemas,
    },
  };
}
