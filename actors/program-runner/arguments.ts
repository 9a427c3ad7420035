/**
 * The program runner's argument templates: each argument is text with placeholders such as
 * `{file}` or `{messageId}`, filled with one message's facts. Every filled argument is one
 * argv entry as it is: no shell reads it, so a file name with `;`, `$()` or spaces stays one
 * argument and runs nothing. `{{` and `}}` write a literal brace.
 */

/** The facts a template may name, and what each becomes. */
export const argumentPlaceholders = {
  file: 'the absolute path of the document, written for this run',
  fileName: 'the document’s file name as the message carries it',
  messageId: 'the message id',
  from: 'the sending party’s name',
  to: 'the receiving party’s name',
  direction: 'inbound or outbound',
  size: 'the document’s size in bytes',
  attempt: 'the attempt number, 1 for the first',
} as const;

export type ArgumentPlaceholder = keyof typeof argumentPlaceholders;
export type ArgumentValues = Record<ArgumentPlaceholder, string>;

const names = Object.keys(argumentPlaceholders) as ArgumentPlaceholder[];
const isPlaceholder = (name: string): name is ArgumentPlaceholder => (names as string[]).includes(name);

/** `{{`, `}}`, or a `{name}`; anything else with a brace is unmatched. */
const token = /\{\{|\}\}|\{([^{}]*)\}/g;

/** Why a template cannot be used, or undefined when it is fine. */
export function argumentProblem(template: string): string | undefined {
  for (const match of template.matchAll(token)) {
    const name = match[1];
    if (name !== undefined && !isPlaceholder(name)) {
      return `Unknown placeholder {${name}}; use ${names.map((n) => `{${n}}`).join(', ')}`;
    }
  }
  if (/[{}]/.test(template.replace(token, ''))) return 'Has an unmatched { or } (write {{ or }} for a brace)';
  return undefined;
}

/** The argument for one message; the template was checked when the configuration was saved. */
export function fillArgument(template: string, values: ArgumentValues): string {
  return template.replace(token, (whole, name: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    return values[name as ArgumentPlaceholder];
  });
}
