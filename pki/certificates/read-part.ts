/**
 * Reading one part of an upload into certificates, keys and notes, whatever its form: PEM
 * text (any block label), DER certificate, PKCS#7, PKCS#12 or private key, bare base64.
 */
import { Asn1Error, readTlv } from '../asn1/tlv.js';
import { countPemBlocks, looksLikePem, scanPem, type PemBlock } from './pem.js';
import { isPkcs7, readPkcs7 } from './pkcs7.js';
import { isPkcs12, Pkcs12Error, readPkcs12 } from './pkcs12.js';
import {
  derKeyKind,
  KeyParseError,
  parsePrivateKeyDer,
  parsePrivateKeyPem,
  type ParsedKey,
} from './private-key.js';
import { asText, bareBase64, derShape, knownOtherFormat } from './sniff.js';
import { maxItemsPerUpload, UploadProblem } from './upload-problem.js';

export interface Part {
  field: 'certificate' | 'private_key';
  password: string | undefined;
  passwordField: 'password' | 'private_key_password';
}

export interface Collected {
  certificates: { der: Buffer; friendlyName: string; where: string }[];
  keys: ParsedKey[];
  notes: string[];
}

const partName = { certificate: 'certificate', private_key: 'private_key' } as const;

function keyProblem(error: KeyParseError, part: Part, where: string): UploadProblem | string {
  const place = where ? ` ${where}` : '';
  if (error.problem === 'password-needed') {
    return new UploadProblem(part.passwordField, `The private key${place} is encrypted; enter its password`);
  }
  if (error.problem === 'wrong-password') {
    return new UploadProblem(part.passwordField, `The password does not open the private key${place}`);
  }
  return `Skipped the private key${place}: ${error.message}`;
}

function addKey(load: () => ParsedKey, part: Part, where: string, out: Collected): void {
  try {
    out.keys.push(load());
  } catch (error) {
    if (!(error instanceof KeyParseError)) throw error;
    const problem = keyProblem(error, part, where);
    if (problem instanceof UploadProblem) throw problem;
    out.notes.push(problem);
  }
}

function addPkcs12(der: Buffer, part: Part, out: Collected): void {
  try {
    const contents = readPkcs12(der, part.password);
    for (const c of contents.certificates) out.certificates.push({ ...c, where: 'in the PKCS#12 file' });
    out.keys.push(...contents.keys.map((k) => k.key));
    out.notes.push(...contents.notes);
  } catch (error) {
    if (!(error instanceof Pkcs12Error)) throw error;
    const field =
      error.problem === 'password-needed' || error.problem === 'wrong-password'
        ? part.passwordField
        : part.field;
    throw new UploadProblem(field, error.message);
  }
}

function readPemBlock(block: PemBlock, part: Part, out: Collected): void {
  const where = `at line ${block.line}`;
  switch (block.label) {
    case 'CERTIFICATE':
    case 'X509 CERTIFICATE':
    case 'TRUSTED CERTIFICATE':
      out.certificates.push({ der: block.der, friendlyName: '', where });
      return;
    case 'PKCS7':
    case 'PKCS #7 SIGNED DATA':
    case 'CMS': {
      try {
        const chain = readPkcs7(block.der);
        for (const der of chain.certificates)
          out.certificates.push({ der, friendlyName: '', where: `in the PKCS#7 block ${where}` });
        out.notes.push(...chain.notes);
      } catch {
        out.notes.push(`Skipped the PKCS#7 block ${where}: it is damaged`);
      }
      return;
    }
    case 'PKCS12':
      addPkcs12(block.der, part, out);
      return;
    case 'PRIVATE KEY':
    case 'ENCRYPTED PRIVATE KEY':
    case 'RSA PRIVATE KEY':
    case 'EC PRIVATE KEY':
    case 'DSA PRIVATE KEY':
      addKey(() => parsePrivateKeyPem(block.text, part.password), part, where, out);
      return;
    case 'PUBLIC KEY':
    case 'RSA PUBLIC KEY':
      out.notes.push(
        `Skipped the public key ${where}: a public key alone is not a certificate; ask for the certificate`,
      );
      return;
    case 'CERTIFICATE REQUEST':
    case 'NEW CERTIFICATE REQUEST':
      out.notes.push(
        `Skipped the certificate signing request (CSR) ${where}: it is not a certificate; ask for the signed certificate`,
      );
      return;
    case 'X509 CRL':
      out.notes.push(`Skipped the certificate revocation list (CRL) ${where}`);
      return;
    case 'EC PARAMETERS':
      out.notes.push(`Skipped the EC PARAMETERS block ${where}: it only names the curve of a key`);
      return;
    default:
      out.notes.push(
        `Skipped the ${block.label} block ${where}: it is neither a certificate nor a private key`,
      );
  }
}

function readDer(der: Buffer, part: Part, out: Collected): void {
  const label = partName[part.field];
  let top;
  try {
    top = readTlv(der);
  } catch (error) {
    if (error instanceof Asn1Error && error.truncated) {
      throw new UploadProblem(
        part.field,
        `The ${label} file is cut short: it is binary (DER) data that ends before its content does; upload the complete file`,
      );
    }
    throw new UploadProblem(part.field, `The ${label} file is damaged binary (DER) data`);
  }
  if (
    top.end < der.length &&
    !der.subarray(top.end).every((b) => b === 0 || b === 0x0a || b === 0x0d || b === 0x20)
  ) {
    throw new UploadProblem(
      part.field,
      `The ${label} file has unexpected data after its end; it is not a certificate`,
    );
  }
  const exact = der.subarray(0, top.end);
  if (isPkcs12(top)) return addPkcs12(exact, part, out);
  if (isPkcs7(top)) {
    const chain = readPkcs7(exact);
    for (const c of chain.certificates)
      out.certificates.push({ der: c, friendlyName: '', where: 'in the PKCS#7 file' });
    out.notes.push(...chain.notes);
    return;
  }
  if (derKeyKind(exact)) return addKey(() => parsePrivateKeyDer(exact, part.password), part, '', out);
  switch (derShape(top)) {
    case 'certificate':
      out.certificates.push({ der: exact, friendlyName: '', where: '' });
      return;
    case 'csr':
      throw new UploadProblem(
        part.field,
        'The file is a certificate signing request (CSR), not a certificate; ask for the signed certificate',
      );
    case 'public-key':
      throw new UploadProblem(
        part.field,
        'The file is a public key, not a certificate; ask for the certificate',
      );
    default:
      throw new UploadProblem(
        part.field,
        `The ${label} file is binary (DER) data, but not a certificate, PKCS#7 chain, PKCS#12 file or private key`,
      );
  }
}

/**
 * Reads one part. Untrusted bytes can break a parser in many ways; whatever is not already an
 * UploadProblem is reported as a damaged file (400), never as a server failure.
 */
export function readPart(bytes: Buffer, part: Part, out: Collected): void {
  try {
    readPartUnchecked(bytes, part, out);
  } catch (error) {
    if (error instanceof UploadProblem) throw error;
    throw new UploadProblem(
      part.field,
      `The ${partName[part.field]} file is damaged and cannot be read (${(error as Error).message})`,
    );
  }
}

function readPartUnchecked(bytes: Buffer, part: Part, out: Collected): void {
  const label = partName[part.field];
  if (bytes.length === 0) throw new UploadProblem(part.field, `The ${label} file is empty`);
  const other = knownOtherFormat(bytes);
  if (other) throw new UploadProblem(part.field, `The ${label} file is ${other}, not a certificate`);
  const text = asText(bytes);
  // DER starts with a SEQUENCE byte, which is also the text "0": text that reads as PEM or
  // base64 is taken as text, anything else starting with it as DER.
  if (bytes[0] === 0x30 && (text === undefined || !(looksLikePem(text) || bareBase64(text)))) {
    return readDer(bytes, part, out);
  }
  if (text !== undefined && looksLikePem(text)) {
    const count = countPemBlocks(text);
    if (count > maxItemsPerUpload) {
      throw new UploadProblem(
        part.field,
        `The ${label} file holds ${count} PEM blocks; at most ${maxItemsPerUpload} can be uploaded at once. Split it into smaller files`,
      );
    }
    const scan = scanPem(text);
    for (const block of scan.blocks) readPemBlock(block, part, out);
    for (const u of scan.unterminated) {
      out.notes.push(
        `Skipped the ${u.label} block at line ${u.line}: it has no END line (the text is cut short)`,
      );
    }
    return;
  }
  const decoded = text === undefined ? undefined : bareBase64(text);
  if (decoded) return readDer(decoded, part, out);
  throw new UploadProblem(
    part.field,
    `The ${label} file is not a certificate: it holds neither PEM text (-----BEGIN CERTIFICATE-----) nor a DER certificate, PKCS#7, PKCS#12 or key file`,
  );
}
