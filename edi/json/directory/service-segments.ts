/**
 * The parts of pier's EDIFACT names that directory D.96A's files do not hold, written by hand:
 * the service segments of ISO 9735 version 4 (UNB…UNZ, UNG…UNE, UNH…UNT, UNS and the CONTRL
 * segments UCI…UCD) with some of their code values, and the few code values pier's test corpus
 * uses from lists the directory only refers to (UN/ECE Recommendation 20 for measure units,
 * Recommendation 19 for modes of transport). Everything else comes from the directory itself
 * (edifact-d96a.json.gz, README.md).
 *
 * Each element is written `id name`, a composite `id name: id name | id name …`.
 */

export const serviceSegments: Record<string, [string, string[]]> = {
  UNB: [
    'Interchange header',
    [
      'S001 Syntax identifier: 0001 Syntax identifier | 0002 Syntax version number | 0080 Service code list directory version number | 0133 Character encoding, coded',
      'S002 Interchange sender: 0004 Interchange sender identification | 0007 Identification code qualifier | 0008 Interchange sender internal identification',
      'S003 Interchange recipient: 0010 Interchange recipient identification | 0007 Identification code qualifier | 0014 Interchange recipient internal identification',
      'S004 Date and time of preparation: 0017 Date | 0019 Time',
      '0020 Interchange control reference',
      'S005 Recipient reference/password details: 0022 Recipient reference/password | 0025 Recipient reference/password qualifier',
      '0026 Application reference',
      '0029 Processing priority code',
      '0031 Acknowledgement request',
      '0032 Interchange agreement identifier',
      '0035 Test indicator',
    ],
  ],
  UNZ: ['Interchange trailer', ['0036 Interchange control count', '0020 Interchange control reference']],
  UNG: [
    'Group header',
    [
      '0038 Message group identification',
      'S006 Application sender identification: 0040 Application sender identification | 0007 Identification code qualifier',
      'S007 Application recipient identification: 0044 Application recipient identification | 0007 Identification code qualifier',
      'S004 Date and time of preparation: 0017 Date | 0019 Time',
      '0048 Group reference number',
      '0051 Controlling agency, coded',
      'S008 Message version: 0052 Message version number | 0054 Message release number | 0057 Association assigned code',
      '0058 Application password',
    ],
  ],
  UNE: ['Group trailer', ['0060 Group control count', '0048 Group reference number']],
  UNH: [
    'Message header',
    [
      '0062 Message reference number',
      'S009 Message identifier: 0065 Message type | 0052 Message version number | 0054 Message release number | 0051 Controlling agency, coded | 0057 Association assigned code',
      '0068 Common access reference',
      'S010 Status of the transfer: 0070 Sequence of transfers | 0073 First and last transfer',
    ],
  ],
  UNT: ['Message trailer', ['0074 Number of segments in a message', '0062 Message reference number']],
  UCI: [
    'Interchange response',
    [
      '0020 Interchange control reference',
      'S002 Interchange sender: 0004 Interchange sender identification | 0007 Identification code qualifier | 0008 Interchange sender internal identification',
      'S003 Interchange recipient: 0010 Interchange recipient identification | 0007 Identification code qualifier | 0014 Interchange recipient internal identification',
      '0083 Action, coded',
      '0085 Syntax error, coded',
      '0013 Service segment tag, coded',
      'S011 Data element identification: 0098 Erroneous data element position in segment | 0104 Erroneous component data element position',
    ],
  ],
  UCM: [
    'Message response',
    [
      '0062 Message reference number',
      'S009 Message identifier: 0065 Message type | 0052 Message version number | 0054 Message release number | 0051 Controlling agency, coded | 0057 Association assigned code',
      '0083 Action, coded',
      '0085 Syntax error, coded',
      '0013 Service segment tag, coded',
      'S011 Data element identification: 0098 Erroneous data element position in segment | 0104 Erroneous component data element position',
    ],
  ],
  UCS: ['Segment error indication', ['0096 Segment position in message body', '0085 Syntax error, coded']],
  UCD: [
    'Data element error indication',
    [
      '0085 Syntax error, coded',
      'S011 Data element identification: 0098 Erroneous data element position in segment | 0104 Erroneous component data element position',
    ],
  ],
  UNS: ['Section control', ['0081 Section identification']],
};

export const serviceCodes: Record<string, Record<string, string>> = {
  '0083': {
    '4': 'This level and all lower levels rejected',
    '7': 'This level acknowledged, next lower level acknowledged if not explicitly rejected',
    '8': 'Interchange received',
  },
  '0085': {
    '12': 'Invalid value',
    '13': 'Missing',
    '14': 'Value not supported in this position',
    '28': 'References do not match',
    '29': 'Control count does not match number of instances received',
  },
  '0035': { '1': 'Interchange is a test' },
  '0007': { '14': 'EAN (International Article Numbering Association)', ZZZ: 'Mutually defined' },
  // Not in the directory's code lists (UNCL): UN/ECE Recommendations 20 and 19.
  '6411': { KGM: 'Kilogram', PCE: 'Piece' },
  '8067': { '30': 'Road transport' },
};
