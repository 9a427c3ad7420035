/**
 * The check an interchange pier built passes before it is sent: written as EDI (which refuses
 * separators in X12 data, characters outside the character set, envelope segments out of place)
 * and then read by pier's own syntax check, the one that acknowledges what partners send. Any
 * error found refuses the build, naming the segment and element.
 */
import { Readable } from 'node:stream';
import { checkInterchange } from '../syntax-check.js';
import { documentToEdi } from './translate.js';
import { EdiJsonError, type EdiJson } from './form.js';

export async function checkedBytes(doc: EdiJson): Promise<Buffer> {
  const bytes = documentToEdi(doc);
  await checkEdi(Readable.from([bytes]));
  return bytes;
}

/** The same check of EDI bytes as they stream (an interchange too large to hold). */
export async function checkEdi(edi: Readable): Promise<void> {
  const report = await checkInterchange(edi);
  if ('problem' in report)
    throw new EdiJsonError(`the built interchange does not read back: ${report.problem}`);
  for (const group of report.groups) {
    for (const set of group.sets) {
      const [bad] = set.segment_errors;
      if (bad) {
        const [element] = bad.elements;
        throw new EdiJsonError(
          `set ${set.type} ${set.control}, segment ${bad.position} (${bad.tag})${element ? `, element ${element.position}` : ''}: syntax error code ${element?.code ?? bad.code}${element?.data !== undefined ? ` in ${JSON.stringify(element.data)}` : ''}`,
          { segment: bad.position, tag: bad.tag, ...(element ? { element: element.position } : {}) },
        );
      }
      if (set.errors.length > 0)
        throw new EdiJsonError(`set ${set.type} ${set.control}: syntax error codes ${set.errors.join(', ')}`);
    }
    if (group.errors.length > 0)
      throw new EdiJsonError(`group ${group.control}: syntax error codes ${group.errors.join(', ')}`);
  }
  if (report.errors.length > 0 || report.notes.length > 0)
    throw new EdiJsonError(
      `the interchange: ${[...report.errors.map((c) => `syntax error code ${c}`), ...report.notes].join('; ')}`,
    );
}
