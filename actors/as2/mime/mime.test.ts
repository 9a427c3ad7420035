// Covers MIME parsing and building on Buffers: header sections (CRLF, LF, folding, limits), parameters with RFC 2231, multipart splitting byte-exactly, transfer encodings and filenames.
import t from 'tap';
import { buildEntity, buildMultipartBody, headerSection, joinChunks, newBoundary } from './build.js';
import { Headers, MimeError, headerLimits, parseHeaderSection } from './headers.js';
import { formatFilename, formatParameter, parseStructuredValue } from './parameters.js';
import { contentTypeOf, filenameOf, parseEntity, parseMultipart, transferEncodingOf } from './parse.js';
import {
  decodeBase64,
  decodeQuotedPrintable,
  decodeTransferEncoding,
  encodeBase64Lines,
} from './transfer-encoding.js';

const b = (s: string) => Buffer.from(s, 'latin1');

t.test('header sections: CRLF or LF, folded lines, case-insensitive names', async (t) => {
  const h = parseHeaderSection(
    'Content-Type: multipart/signed; protocol="application/pkcs7-signature"; micalg=sha256; \r\n\tboundary="b1"\r\nAS2-From: A\nas2-from: B\r\n',
  );
  t.equal(
    h.get('content-type'),
    'multipart/signed; protocol="application/pkcs7-signature"; micalg=sha256; \tboundary="b1"',
  );
  t.same(h.getAll('AS2-FROM'), ['A', 'B']);
  t.notOk(h.has('x'));
  t.throws(() => parseHeaderSection(' leading continuation'), MimeError);
  t.throws(() => parseHeaderSection('no colon here'), MimeError);
  t.throws(() => parseHeaderSection('Bad Name: x'), MimeError);
  const many = Array.from({ length: headerLimits.maxFields + 1 }, (_, i) => `X-${i}: v`).join('\r\n');
  t.throws(() => parseHeaderSection(many), /more than 200 header fields/);
  t.throws(() => parseHeaderSection(`X: ${'a'.repeat(headerLimits.maxSectionBytes)}`), /larger than/);
  const fromHttp = Headers.fromRecord({
    'content-type': 'text/plain',
    'x-many': ['1', '2'],
    'content-length': 5,
  });
  t.same(fromHttp.getAll('x-many'), ['1', '2']);
  t.equal(fromHttp.get('Content-Length'), '5');
  t.same(fromHttp.toRecord(), { 'content-type': 'text/plain', 'x-many': '1', 'content-length': '5' });
});

t.test('structured values: quoting, lenient forms and RFC 2231', async (t) => {
  const ct = parseStructuredValue(
    'Multipart/Signed; PROTOCOL="application/pkcs7-signature"; micalg=sha-256;\tboundary="----=_Part_1;x"; ',
  );
  t.equal(ct.value, 'multipart/signed');
  t.equal(ct.params.get('protocol'), 'application/pkcs7-signature');
  t.equal(ct.params.get('boundary'), '----=_Part_1;x');
  t.equal(ct.params.get('micalg'), 'sha-256');
  t.equal(
    parseStructuredValue('attachment; filename="a \\"quoted\\" name.edi"').params.get('filename'),
    'a "quoted" name.edi',
  );
  t.equal(
    parseStructuredValue('attachment; filename=unquoted name.edi').params.get('filename'),
    'unquoted name.edi',
  );
  t.equal(
    parseStructuredValue("attachment; filename*=UTF-8''%E2%82%AC%20rates.edi").params.get('filename'),
    '€ rates.edi',
  );
  t.equal(
    parseStructuredValue("attachment; filename=fallback.edi; filename*=iso-8859-1'en'caf%E9.edi").params.get(
      'filename',
    ),
    'café.edi',
    'the extended form wins',
  );
  t.equal(
    parseStructuredValue('attachment; filename*1="part.edi"; filename*0="long "').params.get('filename'),
    'long part.edi',
    'continuations in any order',
  );
  t.equal(
    parseStructuredValue("attachment; filename*0*=UTF-8''%E2%82%AC; filename*1=.edi").params.get('filename'),
    '€.edi',
  );
  t.equal(formatParameter('name', 'smime.p7m'), '; name=smime.p7m');
  t.equal(formatParameter('name', 'a b"c'), '; name="a b\\"c"');
  t.throws(() => formatParameter('name', 'a\r\nb'), MimeError);
  for (const name of ['plain.edi', 'with space.edi', 'quote"d.x12', 'Grüße €.edi', 'tab\tname']) {
    const header = `attachment${formatFilename(name)}`;
    t.equal(
      parseStructuredValue(header).params.get('filename'),
      name.replace('\t', '\t'),
      `${name} → ${header}`,
    );
  }
  t.equal(formatFilename('plain.edi', 'token'), '; filename=plain.edi');
  t.equal(formatFilename('plain.edi'), '; filename="plain.edi"');
});

t.test(
  'filenames: Content-Disposition (plain, quoted, RFC 2231, raw UTF-8) then Content-Type name',
  async (t) => {
    const of = (fields: [string, string][]) =>
      filenameOf(new Headers(fields.map(([name, value]) => ({ name, value }))));
    t.equal(of([['Content-Disposition', 'Attachment; filename="po.edi"']]), 'po.edi');
    t.equal(of([['Content-Disposition', 'attachment; filename=po.edi']]), 'po.edi');
    t.equal(
      of([['Content-Disposition', Buffer.from('attachment; filename="ü.edi"').toString('latin1')]]),
      'ü.edi',
    );
    t.equal(of([['Content-Type', 'application/edi-x12; name="x.x12"']]), 'x.x12');
    t.equal(of([['Content-Type', 'application/edi-x12']]), null);
  },
);

t.test('entities: header and body split at the first empty line, exact bytes kept', async (t) => {
  const crlf = parseEntity(b('Content-Type: text/plain\r\nX: 1\r\n\r\nbody\r\n\r\n'));
  t.equal(crlf.headers.get('x'), '1');
  t.equal(crlf.body.toString(), 'body\r\n\r\n');
  const lf = parseEntity(b('Content-Type: text/plain\n\n\nbody'));
  t.equal(lf.body.toString(), '\nbody');
  const none = parseEntity(b('\r\nonly body'));
  t.equal(none.headers.fields.length, 0);
  t.equal(none.body.toString(), 'only body');
  const headersOnly = parseEntity(b('Content-Type: text/plain'));
  t.equal(headersOnly.body.length, 0);
  t.equal(contentTypeOf(crlf.headers).value, 'text/plain');
  t.equal(contentTypeOf(none.headers).value, 'text/plain', 'RFC 2045 default');
  t.equal(transferEncodingOf(none.headers), 'binary');
  t.throws(() => parseEntity(Buffer.alloc(headerLimits.maxSectionBytes + 100, 'a')), MimeError);
});

t.test('multipart: parts are exact views, CRLF or LF delimiters, padding, preamble', async (t) => {
  const body = b('preamble\r\n--B\r\nA: 1\r\n\r\nfirst\r\n\r\n--B  \r\n\r\nsecond\n--B--\r\nepilogue');
  const { parts, preamble } = parseMultipart(body, 'B');
  t.equal(preamble.toString(), 'preamble');
  t.same(
    parts.map((p) => p.toString()),
    ['A: 1\r\n\r\nfirst\r\n', '\r\nsecond'],
  );
  t.equal(parts[0]!.buffer, body.buffer, 'a view, not a copy');
  const lfOnly = parseMultipart(b('--B\nX: y\n\nline1\nline2\n--B\n\nsig\n--B--\n'), 'B');
  t.same(
    lfOnly.parts.map((p) => p.toString()),
    ['X: y\n\nline1\nline2', '\nsig'],
  );
  // A binary part ending in a CR byte: framed with bare LFs, the CR is the part's own.
  const cr = parseMultipart(b('--B\nX: y\n\nbinary\r\n--B\n\nsig\n--B--\n'), 'B');
  t.same(
    cr.parts.map((p) => p.toString()),
    ['X: y\n\nbinary\r', '\nsig'],
    'LF framing: only the LF goes with the delimiter',
  );
  const crlfCr = parseMultipart(b('--B\r\nX: y\r\n\r\nbinary\r\r\n--B--'), 'B');
  t.same(
    crlfCr.parts.map((p) => p.toString()),
    ['X: y\r\n\r\nbinary\r'],
    'CRLF framing: the CRLF goes with the delimiter',
  );
  const similar = parseMultipart(b('--B\r\nx\r\n--BB is not it\r\n--B--'), 'B');
  t.same(
    similar.parts.map((p) => p.toString()),
    ['x\r\n--BB is not it'],
  );
  const inline = parseMultipart(b('--B\r\nx --B inside a line\r\n--B--'), 'B');
  t.same(
    inline.parts.map((p) => p.toString()),
    ['x --B inside a line'],
  );
  t.throws(() => parseMultipart(b('--B\r\ntruncated part'), 'B'), /close delimiter/);
  t.throws(() => parseMultipart(b('no boundary at all'), 'B'), /close delimiter/);
  t.throws(() => parseMultipart(b('--\r\n'), ''), /boundary/);
  const many = Array.from({ length: 40 }, () => '--B\r\nx\r\n').join('') + '--B--';
  t.throws(() => parseMultipart(b(many), 'B'), /more than 32 parts/);
});

t.test('transfer encodings', async (t) => {
  const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256));
  const encoded = encodeBase64Lines(bytes);
  t.ok(
    encoded
      .toString()
      .split('\r\n')
      .every((line) => line.length <= 76),
  );
  t.same(decodeBase64(encoded), bytes);
  t.same(decodeTransferEncoding(encoded, 'base64'), bytes);
  t.throws(() => decodeBase64(b('not*base64')), MimeError);
  t.equal(decodeQuotedPrintable(b('caf=C3=A9 =\r\nsoft=\nbreak = lone')).toString(), 'café softbreak = lone');
  t.equal(decodeTransferEncoding(b('x'), '7bit').toString(), 'x');
  t.throws(() => decodeTransferEncoding(b('x'), 'x-uuencode'), /unknown Content-Transfer-Encoding/);
});

t.test('building: header lines, boundary and multipart body parse back exactly', async (t) => {
  t.equal(headerSection([['A', '1']]).toString(), 'A: 1\r\n\r\n');
  t.throws(() => headerSection([['A', 'x\r\nInjected: 1']]), MimeError);
  const boundary = newBoundary();
  t.match(boundary, /^----=_Part_pier_[0-9a-f]{32}$/);
  t.not(newBoundary(), boundary, 'each boundary is new');
  const first = buildEntity([['Content-Type', 'text/plain']], b('hello\r\n'));
  const second = buildEntity([['Content-Type', 'application/octet-stream']], b('\x00\x01'));
  const body = joinChunks(buildMultipartBody(boundary, [first, second]));
  const { parts } = parseMultipart(body, boundary);
  t.same(parts[0], joinChunks(first));
  t.same(parts[1], joinChunks(second));
});
