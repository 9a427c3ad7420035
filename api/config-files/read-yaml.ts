/**
 * A configuration file's text read as YAML (JSON is YAML too) without trusting its shape. The
 * yaml package's lexer and parser keep their own stack, but its composer, `toJS` and zod
 * recurse once per level: a file nested 10,000 deep overflowed the call stack, and an overflow
 * inside the regular expression engine can abort the whole process. So the nesting is measured
 * while the parser reads, and a file too deep is refused before anything recursive sees it.
 * Aliases are counted as they are read and expanded with the package's own limit, so that a
 * "billion laughs" file, or a long chain of anchors (slow to resolve), is refused early.
 */
import { Composer, CST, Lexer, LineCounter, Parser, type Document } from 'yaml';
import { ConfigProblems } from './names.js';
import { limits } from '../../limits/limits.js';

const tooManyAliases = `Uses more than ${limits.configFileMaxAliases} aliases (*name), or aliases that expand too far, as a file built to exhaust memory does; write the repeated parts out`;

const collections = new Set(['block-map', 'block-seq', 'flow-collection']);

const options = { prettyErrors: false, uniqueKeys: true } as const;

function refuse(where: string, problem: string): never {
  throw new ConfigProblems({ [where]: problem });
}

/** The document of `text`, read with its nesting checked as it grows; throws ConfigProblems. */
function composeChecked(text: string): Document.Parsed {
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  const tokens: CST.Token[] = [];
  lines.addNewLine(0);
  let aliases = 0;
  for (const lexeme of new Lexer().lex(text)) {
    if (CST.tokenType(lexeme) === 'alias' && ++aliases > limits.configFileMaxAliases)
      refuse('(file)', tooManyAliases);
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The stack also holds the document and a scalar being read: count its collections only
    // when its length says they may be too many.
    if (parser.stack.length > limits.configFileMaxNesting + 1) {
      const depth = parser.stack.filter((token) => collections.has(token.type)).length;
      if (depth > limits.configFileMaxNesting) {
        const { line } = lines.linePos(parser.offset);
        refuse(
          `(file) line ${line}`,
          `Maps and lists are nested deeper than ${limits.configFileMaxNesting} levels`,
        );
      }
    }
  }
  for (const token of parser.end()) tokens.push(token);
  let document: Document.Parsed | undefined;
  for (const next of new Composer(options).compose(tokens, true, text.length)) {
    if (document) refuse('(file)', 'Holds more than one YAML document; write one');
    document = next;
  }
  // compose(…, true) ends with a document, even for an empty text.
  if (!document) refuse('(file)', 'Holds no YAML document');
  if (document.errors.length > 0) {
    const problems: Record<string, string> = {};
    for (const e of document.errors) problems[`(file) line ${lines.linePos(e.pos[0]).line}`] ??= e.message;
    throw new ConfigProblems(problems);
  }
  return document;
}

/** The value the text holds, as plain JSON-like data; throws ConfigProblems. */
export function readYaml(text: string): unknown {
  const document = composeChecked(text);
  try {
    return document.toJS({ maxAliasCount: limits.configFileMaxAliases });
  } catch (error) {
    // The package's refusal of an alias bomb, thrown while expanding rather than listed.
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      refuse('(file)', tooManyAliases);
    }
    throw error;
  }
}
