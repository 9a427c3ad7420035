/**
 * What the "Send EDI as JSON" form sends and shows before sending: the JSON the person pasted or
 * uploaded becomes the body of POST /messages/edi with the parties and target picked on the form,
 * and the preview is the interchange that body makes, written and checked as the send writes and
 * checks it. Documents are put in envelopes with the parties' first interchange ids, the partner's
 * envelope settings and the next control numbers as they stand now; the send takes its own
 * numbers when it is accepted, so they are said to be "as of now".
 */
import { Readable } from 'node:stream';
import { buildInterchange, type BuildSet } from '../../../edi/json/build.js';
import { EdiJsonError, type EdiJson } from '../../../edi/json/form.js';
import { checkEdi } from '../../../edi/json/gate.js';
import { documentToEdi } from '../../../edi/json/translate.js';
import { envelopeFor } from '../../resources/messages/envelope-settings.js';
import { envelopeSettingsOf } from '../../schemas/edi-envelope.js';
import { EdiDocumentsToSend, EdiJsonDocument } from '../../schemas/edi-json.js';
import { detailsFromZod } from '../../validation.js';
import type { ListRow } from '../components/index.js';

type Row = Record<string, unknown>;

/** The picked parties, target and file name, which win over any the pasted JSON names. */
export interface SendChoices {
  from: string;
  to: string;
  target: string;
  file_name: string;
}

export type Resolved =
  { ok: true; body: Row; kind: 'interchange' | 'documents' } | { ok: false; problem: string };

/**
 * The request body the pasted JSON stands for. Taken: an interchange in pier's JSON form (what a
 * message page's "The interchange as JSON" gives), documents without envelopes (`standard` and
 * `sets`), or a whole POST /messages/edi body (with `interchange` or `documents`).
 */
export function resolveBody(text: string, choices: SendChoices): Resolved {
  if (text.trim() === '') return { ok: false, problem: 'Paste the JSON or choose a file' };
  let given: unknown;
  try {
    given = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `Not JSON: ${(error as Error).message}` };
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    return {
      ok: false,
      problem: 'The JSON must be an object: an interchange, documents, or a whole request body',
    };
  const g = given as Row;
  let body: Row;
  if ('interchange' in g || 'documents' in g) body = { ...g };
  else if ('header' in g || g.format === 'pier-edi-json/1') body = { interchange: g };
  else if ('sets' in g) body = { documents: g };
  else
    return {
      ok: false,
      problem:
        'Neither an interchange in pier’s JSON form (format, header, trailer) nor documents (standard and sets)',
    };
  for (const key of ['from', 'to', 'target', 'file_name'] as const)
    if (choices[key] !== '') body[key] = choices[key];
    else if (key === 'target' || key === 'file_name') delete body[key];
  return {
    ok: true,
    body,
    kind: 'documents' in body && body.documents !== undefined ? 'documents' : 'interchange',
  };
}

export type Preview = { ok: true; edi: string; note: string } | { ok: false; problem: string };

/** The parties' records and the partner's control numbers, read through the API by the page. */
export interface PreviewFacts {
  organization: ListRow<'/organizations', 'organizations'> | undefined;
  partner: ListRow<'/partners', 'partners'> | undefined;
  /** The partner's outbound counters: level → last value. */
  lastNumbers: Record<string, number>;
}

const firstProblem = (details: Record<string, string>) =>
  Object.entries(details)
    .map(([k, v]) => (k === '_form' ? v : `${k}: ${v}`))
    .join('; ');

async function checked(bytes: Buffer): Promise<string> {
  await checkEdi(Readable.from([bytes]));
  return bytes.toString('latin1');
}

/** The interchange the body makes, as text, or why it makes none. */
export async function previewOf(body: Row, facts: PreviewFacts): Promise<Preview> {
  try {
    if (body.documents === undefined) {
      const parsed = EdiJsonDocument.safeParse(body.interchange);
      if (!parsed.success)
        return { ok: false, problem: `interchange: ${firstProblem(detailsFromZod(parsed.error))}` };
      return {
        ok: true,
        edi: await checked(documentToEdi(parsed.data as unknown as EdiJson)),
        note: 'The interchange is sent as given.',
      };
    }
    const parsed = EdiDocumentsToSend.safeParse(body.documents);
    if (!parsed.success)
      return { ok: false, problem: `documents: ${firstProblem(detailsFromZod(parsed.error))}` };
    const { organization, partner } = facts;
    if (!organization || !partner)
      return { ok: false, problem: 'Documents are built from an organization (From) to a partner (To)' };
    const [sender] = organization.interchange_ids;
    const [receiver] = partner.interchange_ids;
    if (!sender)
      return {
        ok: false,
        problem: `${organization.name} has no interchange id to put in the envelope`,
      };
    if (!receiver)
      return { ok: false, problem: `${partner.name} has no interchange id to put in the envelope` };
    const documents = parsed.data;
    const settings = {
      ...envelopeFor(documents, envelopeSettingsOf(partner.edi_envelope)),
      line_break: documents.line_break,
      sender,
      receiver,
      at: new Date(),
    };
    const next = (level: string) => (facts.lastNumbers[level] ?? 0) + 1;
    const numbers = { interchange: next('interchange'), group: next('group'), set: next('set') };
    const doc = buildInterchange(settings, documents.sets as BuildSet[], numbers);
    return {
      ok: true,
      edi: await checked(documentToEdi(doc)),
      note: `Envelopes from ${organization.name}'s and ${partner.name}'s first interchange ids and ${partner.name}'s envelope settings; control numbers as of now (interchange ${numbers.interchange}): the send takes the next ones when it is accepted.`,
    };
  } catch (error) {
    if (error instanceof EdiJsonError) return { ok: false, problem: error.message };
    if (error instanceof Error && 'details' in error) {
      const details = (error as { details?: Record<string, string> }).details;
      if (details) return { ok: false, problem: firstProblem(details) };
    }
    throw error;
  }
}
