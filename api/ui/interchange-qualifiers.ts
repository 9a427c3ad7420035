/**
 * The qualifiers an interchange id is picked with: X12 ISA05/ISA07 and EDIFACT UNB 0007 (the
 * partner identification code qualifier of ISO 9735). Each names the scheme the id belongs to,
 * as a partner's EDI set-up sheet gives it ("ZZ / ACME", "14 / 5412345000013"). The words are
 * pier's own: X12's code list is licensed, so only the codes and the scheme each stands for are
 * kept (docs/decisions/interchange-id-qualifiers-as-pickers-with-pier-s-own-words.md).
 */

export interface Qualifier {
  code: string;
  label: string;
}

/** X12 ISA05 and ISA07, the identification schemes in common use. */
export const x12Qualifiers: readonly Qualifier[] = [
  { code: 'ZZ', label: 'mutually defined' },
  { code: '01', label: 'D-U-N-S number' },
  { code: '02', label: 'SCAC carrier code' },
  { code: '08', label: 'UCC EDI communications id (GS1 US)' },
  { code: '09', label: 'X.121 address' },
  { code: '12', label: 'telephone number' },
  { code: '14', label: 'D-U-N-S number with suffix' },
  { code: '16', label: 'D-U-N-S number with 4-character suffix' },
  { code: '20', label: 'Health Industry Number' },
  { code: '27', label: 'carrier id (US health care)' },
  { code: '28', label: 'fiscal intermediary (US health care)' },
  { code: '29', label: 'Medicare provider (US health care)' },
  { code: '30', label: 'US federal tax id' },
  { code: '33', label: 'NAIC company code (US insurance)' },
];

/** EDIFACT UNB 0007, the identification schemes in common use. */
export const edifactQualifiers: readonly Qualifier[] = [
  { code: 'ZZZ', label: 'mutually defined' },
  { code: 'ZZ', label: 'mutually defined (older directories)' },
  { code: '14', label: 'GS1 global location number (EAN)' },
  { code: '1', label: 'D-U-N-S number' },
  { code: '4', label: 'IATA' },
  { code: '5', label: 'INSEE (France)' },
  { code: '8', label: 'UCC communications id (GS1 US)' },
  { code: '9', label: 'D-U-N-S number with 4-digit suffix' },
  { code: '12', label: 'telephone number' },
  { code: '30', label: 'ISO 6523 organization id' },
  { code: '31', label: 'DIN (Germany)' },
  { code: '55', label: 'bank identifier code (BIC)' },
  { code: '59', label: 'ODETTE' },
];

/** How a qualifier reads in a picker and on a page: `ZZ: mutually defined (X12)`. */
export function qualifierLabel(code: string): string {
  const x12 = x12Qualifiers.find((q) => q.code === code);
  const edifact = edifactQualifiers.find((q) => q.code === code);
  if (x12 && edifact) return `${code}: ${x12.label} (X12), ${edifact.label} (EDIFACT)`;
  if (x12) return `${code}: ${x12.label} (X12)`;
  if (edifact) return `${code}: ${edifact.label} (EDIFACT)`;
  return code === '' ? 'any qualifier' : code;
}
