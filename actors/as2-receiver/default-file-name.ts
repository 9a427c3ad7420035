/**
 * The name a received document gets when its sender gave none. S/MIME wrappers carry names of
 * their own (`smime.p7m` on an encrypted body, `smime.p7s` on a signature): those name the
 * wrapper, not the document, and every unnamed message would share them, so two such messages
 * collided in a file-writer with `if_exists: fail`. The default says where the document came
 * from and is unique: the sender's AS2 name and its Message-ID (unique per message, RFC 5322),
 * with an extension from the document's content type.
 */

/** Names of S/MIME structures (RFC 8551 §3.2.1), never a document's. */
const wrapperNames = /^smime\.p7[mscz]$/i;

/** A document name the sender gave, or null when it gave none or only a wrapper's. */
export function documentName(given: string | null | undefined): string | null {
  const name = given?.trim();
  return name && !wrapperNames.test(name) ? name : null;
}

const extensions: [RegExp, string][] = [
  [/^application\/edi-x12$/, '.x12'],
  [/^application\/edifact$/, '.edi'],
  [/^application\/edi-consent$/, '.edi'],
  [/^(application|text)\/([a-z0-9.+-]+\+)?xml$/, '.xml'],
  [/^application\/([a-z0-9.+-]+\+)?json$/, '.json'],
  [/^application\/pdf$/, '.pdf'],
  [/^text\/csv$/, '.csv'],
  [/^text\/plain$/, '.txt'],
];

/** Characters kept in a file name as they are; every other becomes `_`. */
const unsafe = /[^A-Za-z0-9._@-]+/g;

export function defaultFileName(as2From: string, messageId: string, contentType: string): string {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const extension = extensions.find(([pattern]) => pattern.test(type))?.[1] ?? '.dat';
  const part = (text: string, max: number) =>
    text
      .replace(unsafe, '_')
      .replace(/^[._]+/, '')
      .slice(0, max);
  const from = part(as2From, 64) || 'unknown';
  const id = part(messageId.replace(/^<|>$/g, ''), 160) || 'message';
  return `${from}-${id}${extension}`;
}
