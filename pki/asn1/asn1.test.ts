// Covers the BER reader and DER writer: lengths, indefinite forms, chunked OCTET STRINGs, tags, OIDs, times, SET OF order and refusal of truncated or hostile input; and the two readers' one node type, each reader keeping when damaged input throws (CMS: at once, bounded by the parent; certificate files: when the children are asked for, bounded by the file).
import t from 'tap';
import { Asn1Node } from './node.js';
import { Asn1Error, octetChunks, readBer, readOctets, readOid, readSmallInteger } from './reader.js';
import { children, readTlv, readWhole } from './tlv.js';
import {
  explicit,
  implicit,
  integer,
  octetString,
  oid,
  sequence,
  setOf,
  time,
  tlv,
  toBuffer,
} from './writer.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

t.test('DER written here reads back', async (t) => {
  const value = sequence(
    oid('1.2.840.113549.1.7.2'),
    explicit(0, integer(300)),
    implicit(1, octetString(Buffer.alloc(300, 7))),
    octetString([Buffer.from('ab'), Buffer.from('cd')]),
  );
  const der = toBuffer(value);
  t.equal(der.length, value.length);
  const node = readBer(der);
  t.equal(readOid(node.child(0, 'oid')), '1.2.840.113549.1.7.2');
  t.equal(readSmallInteger(node.child(1, 'explicit').child(0, 'int')), 300);
  const implicitNode = node.child(2, 'implicit');
  t.ok(implicitNode.isContext(1) && !implicitNode.constructed);
  t.equal(implicitNode.headerLength, 4, 'long form length');
  t.same(readOctets(implicitNode), Buffer.alloc(300, 7));
  t.equal(readOctets(node.child(3, 'octets')).toString(), 'abcd');
  t.same(node.raw, der);
  t.equal(toBuffer(integer(0)).toString('hex'), '020100');
  t.equal(toBuffer(integer(128)).toString('hex'), '02020080');
  t.equal(toBuffer(oid('2.5.29.14')).toString('hex'), '0603551d0e');
  t.equal(readOid(readBer(toBuffer(oid('2.999.3')))), '2.999.3', 'large first arc');
});

t.test('BER as OpenSSL and BouncyCastle stream it: indefinite lengths, chunked strings', async (t) => {
  // SEQUENCE (indefinite) { [0] (indefinite) { OCTET STRING constructed (indefinite) { "ab", "cd" } } }
  const ber = hex('30 80 a0 80 24 80 04 02 6162 04 02 6364 0000 0000 0000');
  const node = readBer(ber);
  const octets = node.child(0, 'a0').child(0, 'octets');
  t.same(
    octetChunks(octets).map((c) => c.toString()),
    ['ab', 'cd'],
  );
  t.equal(node.raw.length, ber.length);
  t.equal(
    readBer(Buffer.concat([hex('0500'), hex('0000 0d0a')])).tag,
    5,
    'trailing zeros and newlines tolerated',
  );
  t.equal(readBer(hex('9f 81 01 00')).tag, 129, 'high tag numbers');
});

t.test('truncated and hostile input is an Asn1Error', async (t) => {
  const cases: [string, Buffer][] = [
    ['empty', Buffer.alloc(0)],
    ['length past the end', hex('04 05 6162')],
    ['missing end-of-contents', hex('30 80 0500')],
    ['indefinite primitive', hex('04 80 0000')],
    ['five length bytes', hex('04 85 0000000001 00')],
    ['trailing garbage', hex('0500 41')],
    ['oversized tag', hex('1f ffffffff7f 00')],
    [
      'nested beyond the limit',
      Buffer.concat([Buffer.alloc(100, 0x30).map((_, i) => (i % 2 ? 0x80 : 0x30))]),
    ],
  ];
  for (const [label, bytes] of cases) t.throws(() => readBer(bytes), Asn1Error, label);
  t.throws(() => readOid(readBer(hex('0600'))), Asn1Error, 'empty OID');
  t.throws(() => readSmallInteger(readBer(hex('0500'))), Asn1Error, 'not an integer');
  t.throws(() => readBer(hex('3000')).child(0, 'thing'), /missing thing/);
});

t.test('one node type; each reader keeps when damaged input throws', async (t) => {
  // SEQUENCE of 2 bytes whose OCTET STRING child claims 3: past its parent, within the input.
  const overrun = hex('30 02 04 03 414243');
  t.throws(() => readBer(overrun), /truncated: a value of 3 bytes runs past the end/, 'CMS: at once');
  const lazy = readTlv(overrun);
  t.ok(lazy instanceof Asn1Node, 'the certificate reader makes the same nodes');
  t.equal(
    children(lazy)[0]!.content.toString(),
    'ABC',
    'certificate files: bounded by the file, not the parent',
  );

  // A SEQUENCE whose only child is cut short: the certificate reader throws only when asked.
  const damagedChild = hex('30 03 04 05 41');
  t.throws(() => readBer(damagedChild), Asn1Error, 'CMS: at once');
  const whole = readWhole(damagedChild);
  const error = t.throws(() => children(whole)) as Asn1Error;
  t.ok(
    error instanceof Asn1Error && error.truncated,
    'certificate files: when the children are read, as truncated',
  );
  t.match(error.message, 'The data is cut short: an element needs 4 more bytes than the file has');
  t.throws(() => whole.children, /cut short/, 'asking again throws again');
  t.same(readBer(hex('30 03 04 01 41')).children[0]!.content, Buffer.from('A'));
});

t.test('times and SET OF order', async (t) => {
  t.equal(toBuffer(time(new Date('2026-11-21T03:52:33.900Z'))).toString('latin1', 2), '261121035233Z');
  t.equal(toBuffer(time(new Date('2050-01-01T00:00:00Z'))).toString('latin1', 2), '20500101000000Z');
  const sorted = toBuffer(setOf([octetString(Buffer.from('b')), octetString(Buffer.from('a')), integer(5)]));
  t.equal(sorted.toString('hex'), '3109' + '020105' + '040161' + '040162');
  t.equal(toBuffer(tlv(0x80, [Buffer.from('x')])).toString('hex'), '800178');
});
