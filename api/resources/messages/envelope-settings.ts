/**
 * The envelope settings of an interchange pier builds from documents sent as JSON: the partner's
 * stored ones (edi_envelope), with what the request gives in their place. Kept apart from the
 * send itself, which is about numbers, storing and acceptance.
 */
import type { BuildSettings } from '../../../edi/json/build.js';
import type { DelimitersJson } from '../../../edi/json/form.js';
import { validationError } from '../../errors.js';
import { repeatedDelimiters, type EdiEnvelopeSettings } from '../../schemas/edi-envelope.js';
import type { EdiJsonSend } from '../../schemas/edi-json.js';

type Documents = NonNullable<ReturnType<typeof EdiJsonSend.parse>['documents']>;

/**
 * The envelope settings of a build: the request's where it gives them, else the partner's
 * (api/schemas/edi-envelope.ts). An empty repetition separator of the partner's is left to
 * the version (build.ts), one the request gives is written as given.
 */
export function envelopeFor(
  documents: Documents,
  partner: EdiEnvelopeSettings,
): Pick<BuildSettings, 'standard' | 'version' | 'test' | 'acknowledgement_requested' | 'delimiters'> {
  const x12 = documents.standard === 'x12';
  const stored: Partial<DelimitersJson> = x12
    ? { element: partner.x12_element, component: partner.x12_component, segment: partner.x12_segment }
    : {
        element: partner.edifact_element,
        component: partner.edifact_component,
        release: partner.edifact_release,
        segment: partner.edifact_segment,
      };
  const repetition = x12 ? partner.x12_repetition : partner.edifact_repetition;
  if (repetition !== '') stored.repetition = repetition;
  const given = Object.fromEntries(
    Object.entries(documents.delimiters ?? {}).filter(([, v]) => v !== undefined),
  ) as Partial<DelimitersJson>;
  const delimiters = { ...stored, ...given };
  const [repeated] = repeatedDelimiters(delimiters, [
    'element',
    'component',
    'repetition',
    'release',
    'segment',
  ]);
  if (repeated)
    throw validationError({
      documents: `delimiters.${repeated.name}: ${repeated.value} is the ${repeated.first} delimiter already (the partner's edi_envelope or this request); each delimiter must differ`,
    });
  return {
    standard: documents.standard,
    version: documents.version ?? (x12 ? partner.x12_version : partner.edifact_syntax),
    test: documents.test ?? partner.test,
    acknowledgement_requested: documents.acknowledgement_requested ?? partner.acknowledgement_requested,
    delimiters,
  };
}
