/** ContentInfo (RFC 5652 §3): the outer wrapper of every CMS value. */
import { Asn1Error, readBer, readOid, type Asn1Node } from '../asn1/reader.js';

export interface ContentInfo {
  /** The contentType OID. */
  type: string;
  /** The value inside `[0] EXPLICIT`. */
  content: Asn1Node;
}

export function readContentInfo(der: Buffer): ContentInfo {
  const root = readBer(der);
  if (!root.isUniversal(16)) throw new Asn1Error('not a CMS ContentInfo');
  const type = readOid(root.child(0, 'contentType'));
  const wrapper = root.child(1, 'content');
  if (!wrapper.isContext(0)) throw new Asn1Error('ContentInfo content is not [0]');
  return { type, content: wrapper.child(0, 'content') };
}
