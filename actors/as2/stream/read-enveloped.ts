/**
 * The structure of an EnvelopedData or AuthEnvelopedData ContentInfo read from a stream: the
 * recipients, the content algorithm, GCM's mac and authenticated attributes, with the
 * encrypted content passed to a sink in pieces. DER with a primitive [0] encryptedContent and
 * BER with indefinite lengths and a chunked one (`openssl cms -encrypt -stream`) read alike.
 * Anything the Buffer reader (cms/enveloped-data.ts) would read differently or refuse is a
 * NotStreamable, and the caller opens the message in memory instead, so the outcome is the same.
 */
import { Asn1Error, readBer, readOctets, readOid, type Asn1Node } from '../../../pki/asn1/reader.js';
import { oids } from '../../../pki/oids.js';
import { BerStream, type BerHeader } from './read-ber.js';

export class NotStreamable extends Error {
  constructor(reason: string, options?: { cause: unknown }) {
    super(`not readable as a stream: ${reason}`, options);
    this.name = 'NotStreamable';
  }
}

export interface EnvelopedStructure {
  authenticated: boolean;
  recipients: readonly Asn1Node[];
  contentAlgorithm: Asn1Node;
  /** Bytes of encrypted content. */
  contentBytes: number;
  mac: Buffer | null;
  authAttrs: Buffer | null;
}

const universal = 0;
const context = 2;
const isTag = (h: BerHeader, cls: number, tag: number) => h.tagClass === cls && h.tag === tag;

/** Reads the structure; every Asn1Error is turned into NotStreamable. */
export async function readEnvelopedStream(
  source: AsyncIterable<Buffer>,
  sink: (piece: Buffer) => void,
): Promise<EnvelopedStructure> {
  try {
    return await walk(new BerStream(source), sink);
  } catch (error) {
    if (error instanceof Asn1Error) throw new NotStreamable(error.message, { cause: error });
    throw error;
  }
}

async function walk(ber: BerStream, sink: (piece: Buffer) => void): Promise<EnvelopedStructure> {
  const info = await ber.header();
  if (!isTag(info, universal, 16) || !info.constructed) throw new Asn1Error('not a ContentInfo');
  const type = readOid(readBer(await ber.element()));
  const authenticated = type === oids.authEnvelopedData;
  if (!authenticated && type !== oids.envelopedData) throw new Asn1Error(`not EnvelopedData but ${type}`);
  const wrapper = await ber.header();
  if (!isTag(wrapper, context, 0) || !wrapper.constructed) throw new Asn1Error('content is not [0]');
  const enveloped = await ber.header();
  if (!enveloped.constructed) throw new Asn1Error('EnvelopedData is not constructed');
  await ber.element(); // version
  let next = readBer(await ber.element());
  if (next.isContext(0)) next = readBer(await ber.element()); // originatorInfo
  const recipients = next.children;

  const eci = await ber.header();
  if (!eci.constructed) throw new Asn1Error('encryptedContentInfo is not constructed');
  await ber.element(); // contentType
  const contentAlgorithm = readBer(await ber.element());
  const content = await ber.header();
  if (!isTag(content, context, 0)) throw new Asn1Error('no encrypted content');
  const contentBytes = await ber.passOctets(content, sink);
  // The Buffer reader ignores what follows the content in encryptedContentInfo.
  while (await ber.hasMore(eci)) await ber.element();

  let mac: Buffer | null = null;
  let authAttrs: Buffer | null = null;
  if (authenticated) {
    if (!(await ber.hasMore(enveloped))) throw new Asn1Error('missing mac');
    let field = readBer(await ber.element());
    if (field.isContext(1)) {
      authAttrs = Buffer.from(field.raw);
      authAttrs[0] = 0x31; // authenticated as a SET OF (RFC 5083 §2.2)
      if (!(await ber.hasMore(enveloped))) throw new Asn1Error('missing mac');
      field = readBer(await ber.element());
    }
    mac = Buffer.from(readOctets(field));
  }
  // unprotectedAttrs and unauthAttrs: not used, as in the Buffer reader.
  while (await ber.hasMore(enveloped)) await ber.element();
  while (await ber.hasMore(wrapper)) await ber.element();
  while (await ber.hasMore(info)) await ber.element();
  await ber.expectEnd();
  return { authenticated, recipients, contentAlgorithm, contentBytes, mac, authAttrs };
}
