/**
 * A small, strict XML reader for certificate exchange documents: elements, attributes, text,
 * CDATA, comments and processing instructions, the five predefined entities and character
 * references. A DOCTYPE is refused (no entity expansion, no external references), and so is
 * anything not well formed, with the line where it went wrong. Namespace prefixes are kept
 * apart from the local name: CEM partners write `ns:`, `cem:` or no prefix at all.
 */

export interface XmlElement {
  /** The name without its prefix. */
  local: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  /** The element's own text (CDATA included), children's text left out. */
  text: string;
}

export class XmlError extends Error {}

/** Deepest nesting taken; a CEM document needs five levels. */
const maxDepth = 32;
const predefined: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function readXml(source: string): XmlElement {
  let at = 0;
  const lineAt = (offset: number) => source.slice(0, offset).split('\n').length;
  const fail = (problem: string): never => {
    throw new XmlError(`${problem} (line ${lineAt(at)})`);
  };
  const decode = (text: string): string =>
    text.replace(/&([^;&\s]{1,10});?/g, (whole, name: string) => {
      if (!whole.endsWith(';')) fail(`an & that starts no entity`);
      if (name.startsWith('#x')) return codePoint(Number.parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return codePoint(Number.parseInt(name.slice(1), 10));
      const value = predefined[name];
      if (value === undefined) fail(`the entity &${name}; is not one XML predefines`);
      return value!;
    });
  const codePoint = (n: number): string => {
    if (!Number.isInteger(n) || n <= 0 || n > 0x10ffff) fail('a character reference out of range');
    return String.fromCodePoint(n);
  };
  /** Skips comments, processing instructions and blanks between elements. */
  const skipMisc = () => {
    for (;;) {
      const blank = /^\s*/.exec(source.slice(at))![0].length;
      at += blank;
      if (source.startsWith('<?', at)) {
        const end = source.indexOf('?>', at);
        if (end === -1) fail('a processing instruction without its end');
        at = end + 2;
      } else if (source.startsWith('<!--', at)) {
        const end = source.indexOf('-->', at);
        if (end === -1) fail('a comment without its end');
        at = end + 3;
      } else if (source.startsWith('<!DOCTYPE', at) || source.startsWith('<!ENTITY', at)) {
        fail('a DOCTYPE is not accepted in a certificate exchange document');
      } else return;
    }
  };
  const nameAt = (): string => {
    const match = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/.exec(source.slice(at));
    if (!match) fail('a name was expected');
    at += match![0].length;
    return match![0];
  };
  const element = (depth: number): XmlElement => {
    if (depth > maxDepth) fail(`elements nested deeper than ${maxDepth}`);
    if (source[at] !== '<') fail('an element was expected');
    at++;
    const name = nameAt();
    const attributes = new Map<string, string>();
    for (;;) {
      const blank = /^\s*/.exec(source.slice(at))![0].length;
      at += blank;
      if (source.startsWith('/>', at)) {
        at += 2;
        return { local: localOf(name), attributes, children: [], text: '' };
      }
      if (source[at] === '>') {
        at++;
        break;
      }
      if (blank === 0) fail(`a blank was expected between attributes of <${name}>`);
      const attribute = nameAt();
      const value = /^\s*=\s*("([^"<]*)"|'([^'<]*)')/.exec(source.slice(at));
      if (!value) fail(`attribute ${attribute} of <${name}> has no quoted value`);
      at += value![0].length;
      if (attributes.has(attribute)) fail(`attribute ${attribute} of <${name}> is repeated`);
      attributes.set(attribute, decode(value![2] ?? value![3] ?? ''));
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      if (at >= source.length) fail(`<${name}> is not closed`);
      if (source.startsWith('</', at)) {
        at += 2;
        const closing = nameAt();
        if (closing !== name) fail(`</${closing}> closes <${name}>`);
        at += /^\s*/.exec(source.slice(at))![0].length;
        if (source[at] !== '>') fail(`</${closing}> is not ended by >`);
        at++;
        return { local: localOf(name), attributes, children, text };
      }
      if (source.startsWith('<![CDATA[', at)) {
        const end = source.indexOf(']]>', at);
        if (end === -1) fail('a CDATA section without its end');
        text += source.slice(at + 9, end);
        at = end + 3;
      } else if (source.startsWith('<!--', at) || source.startsWith('<?', at)) {
        skipMisc();
      } else if (source[at] === '<') {
        children.push(element(depth + 1));
      } else {
        const next = source.indexOf('<', at);
        const end = next === -1 ? source.length : next;
        text += decode(source.slice(at, end));
        at = end;
      }
    }
  };
  if (source.charCodeAt(0) === 0xfeff) at = 1;
  skipMisc();
  const root = element(0);
  skipMisc();
  if (at < source.length) fail('content after the document element');
  return root;
}

function localOf(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** The children of `parent` named `local` (any prefix). */
export function childrenNamed(parent: XmlElement, local: string): XmlElement[] {
  return parent.children.filter((c) => c.local === local);
}

/** The one child named `local`, or undefined; two of them is an error. */
export function onlyChild(parent: XmlElement, local: string): XmlElement | undefined {
  const found = childrenNamed(parent, local);
  if (found.length > 1)
    throw new XmlError(`<${parent.local}> holds ${found.length} <${local}> elements; one is allowed`);
  return found[0];
}

/** Escapes text for an element's content or a double-quoted attribute. */
export function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]};`,
  );
}
