/**
 * Requests for one operation of the OpenAPI document: parameters and bodies from its schemas
 * (arbitraries.ts), with hostile headers, Content-Types, raw JSON and multipart framing.
 */
import fc from 'fast-check';
import { arbitraryOf, hostileJson, hostileString, sometimes, type Json } from './arbitraries.js';

export interface Operation {
  path: string;
  method: string;
  op: Json;
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}

const text = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/json; charset=latin1',
  'multipart/form-data',
  '',
);

const boundary = 'fuzzBoundary';

/** A multipart body from the form's properties, sometimes with broken framing. */
function multipartOf(schema: Json | undefined, doc: Json): fc.Arbitrary<{ body: string; type: string }> {
  const properties = Object.keys((schema?.properties ?? {}) as Json);
  const part = fc.record({
    name: fc.oneof(fc.constantFrom(...properties, 'file'), fc.constant(undefined), hostileString),
    file: fc.boolean(),
    value: fc.oneof(fc.string({ maxLength: 60 }), hostileString),
  });
  const framing = fc.constantFrom('good', 'good', 'good', 'no-close', 'cut', 'other-boundary', 'garbage');
  return fc
    .tuple(fc.array(part, { maxLength: 8 }), framing, arbitraryOf(schema, doc, 0, 0))
    .map(([parts, frame]) => {
      const body = parts
        .map(
          (p) =>
            `--${boundary}\r\nContent-Disposition: form-data${p.name === undefined ? '' : `; name="${p.name.replace(/["\r\n]/g, '')}"`}${
              p.file ? '; filename="f.bin"\r\nContent-Type: application/octet-stream' : ''
            }\r\n\r\n${p.value}\r\n`,
        )
        .join('');
      const type = `multipart/form-data; boundary=${frame === 'other-boundary' ? 'another' : boundary}`;
      if (frame === 'no-close') return { body, type };
      if (frame === 'cut') return { body: body.slice(0, Math.floor(body.length / 2)), type };
      if (frame === 'garbage') return { body: 'not multipart at all', type };
      return { body: `${body}--${boundary}--\r\n`, type };
    });
}

/** Path and query values as text, from their schemas or hostile. */
function parameterText(p: Parameter, doc: Json): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: arbitraryOf(p.schema, doc, 0, 0).map(text) },
    { weight: 1, arbitrary: hostileString },
  );
}

/** Lone surrogates cannot be percent-encoded: a client sends U+FFFD for them. */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** A path segment as a client would send it; a lone surrogate (not encodable) as raw %-bytes. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return escape(value).replace(/\+/g, '%2B').replace(/\//g, '%2F');
  }
}

export function requestsFor(operation: Operation, doc: Json): fc.Arbitrary<FuzzRequest> {
  const params = (operation.op.parameters ?? []) as Parameter[];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const content = ((operation.op.requestBody as Json | undefined)?.content ?? {}) as Record<
    string,
    { schema?: Json }
  >;
  const multipart = content['multipart/form-data'];
  const json = content['application/json'];

  const path = fc.tuple(...pathParams.map((p) => parameterText(p, doc))).map((values) => {
    let url = operation.path;
    // An empty segment would name another path (`/x/` is `/x`): a client sends something.
    pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, encodeSegment(values[i] || '_'))));
    return url;
  });
  const query = fc
    .tuple(
      ...queryParams.map((p) => sometimes(parameterText(p, doc), p.required ? 9 : 1, p.required ? 10 : 2)),
      sometimes(fc.tuple(hostileString, hostileString), 1, 6),
    )
    .map((values) => {
      const search = new URLSearchParams();
      queryParams.forEach((p, i) => {
        const v = values[i];
        if (typeof v === 'string') search.append(p.name, wellFormed(v));
      });
      const extra = values[queryParams.length] as [string, string] | null;
      if (extra) search.append(wellFormed(extra[0]), wellFormed(extra[1]));
      const s = search.toString();
      return s ? `?${s}` : '';
    });

  let body: fc.Arbitrary<{ payload?: string; type?: string }>;
  if (multipart) {
    body = multipartOf(multipart.schema, doc).map(({ body: b, type }) => ({ payload: b, type }));
  } else if (operation.method === 'get') {
    body = fc.constant({});
  } else {
    body = fc.oneof(
      {
        weight: 6,
        arbitrary: arbitraryOf(json?.schema, doc).map((v) => ({ payload: JSON.stringify(v) ?? '' })),
      },
      { weight: 1, arbitrary: hostileJson.map((v) => ({ payload: JSON.stringify(v) ?? '' })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('{', '{"a":', '[1,]', 'nul', '\u0000', '').map((p) => ({ payload: p })),
      },
    );
  }
  const type = multipart ? fc.constant(undefined) : sometimes(contentTypes, 1, 6);
  return fc
    .record({
      path,
      query,
      body,
      type,
      // Uploads mostly carry X-Requested-With, so most get past it to the form.
      requestedWith: multipart
        ? fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) })
        : fc.boolean(),
      authorization: sometimes(fc.constantFrom('Bearer nope', 'Basic abc', '', 'Bearer'), 1, 12),
    })
    .map((r) => {
      const headers: Record<string, string> = {};
      const contentType =
        r.body.type ?? r.type ?? (operation.method === 'get' ? undefined : 'application/json');
      if (contentType) headers['content-type'] = contentType;
      if (r.requestedWith) headers['x-requested-with'] = 'fuzz';
      if (r.authorization !== null) headers.authorization = r.authorization;
      return {
        method: operation.method.toUpperCase(),
        url: `/api/v1${r.path}${r.query}`,
        headers,
        ...(r.body.payload !== undefined ? { payload: r.body.payload } : {}),
      };
    });
}
