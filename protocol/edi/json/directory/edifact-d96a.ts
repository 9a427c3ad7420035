/**
 * A small part of the UN/CEFACT EDIFACT directory: the segments, composites, data elements and
 * code values that the orders, order responses, despatch advices, invoices and syntax reports
 * of pier's test corpus use. Names are those of directory D.96A (EDSD, EDCD, EDED, UNCL),
 * published by UNECE free of charge at https://unece.org/trade/uncefact/unedifact; the service
 * segments (UNB…UNZ, UCI…UCD) are those of ISO 9735 version 4. It is not the whole directory:
 * a segment missing here gets position names only, as an X12 segment does.
 *
 * Each element is written `id name`, a composite `id name: id name | id name …`.
 */

const segments: Record<string, [string, string[]]> = {
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
  BGM: [
    'Beginning of message',
    [
      'C002 Document/message name: 1001 Document/message name, coded | 1131 Code list qualifier | 3055 Code list responsible agency, coded | 1000 Document/message name',
      '1004 Document/message number',
      '1225 Message function, coded',
      '4343 Response type, coded',
    ],
  ],
  DTM: [
    'Date/time/period',
    [
      'C507 Date/time/period: 2005 Date/time/period qualifier | 2380 Date/time/period | 2379 Date/time/period format qualifier',
    ],
  ],
  FTX: [
    'Free text',
    [
      '4451 Text subject qualifier',
      '4453 Text function, coded',
      'C107 Text reference: 4441 Free text, coded | 1131 Code list qualifier | 3055 Code list responsible agency, coded',
      'C108 Text literal: 4440 Free text | 4440 Free text | 4440 Free text | 4440 Free text | 4440 Free text',
      '3453 Language, coded',
    ],
  ],
  RFF: [
    'Reference',
    [
      'C506 Reference: 1153 Reference qualifier | 1154 Reference number | 1156 Line number | 4000 Reference version number',
    ],
  ],
  NAD: [
    'Name and address',
    [
      '3035 Party qualifier',
      'C082 Party identification details: 3039 Party id. identification | 1131 Code list qualifier | 3055 Code list responsible agency, coded',
      'C058 Name and address: 3124 Name and address line | 3124 Name and address line | 3124 Name and address line | 3124 Name and address line | 3124 Name and address line',
      'C080 Party name: 3036 Party name | 3036 Party name | 3036 Party name | 3036 Party name | 3036 Party name | 3045 Party name format, coded',
      'C059 Street: 3042 Street and number/p.o. box | 3042 Street and number/p.o. box | 3042 Street and number/p.o. box | 3042 Street and number/p.o. box',
      '3164 City name',
      '3229 Country sub-entity identification',
      '3251 Postcode identification',
      '3207 Country, coded',
    ],
  ],
  CUX: [
    'Currencies',
    [
      'C504 Currency details: 6347 Currency details qualifier | 6345 Currency, coded | 6343 Currency qualifier | 6348 Currency rate base',
      'C504 Currency details: 6347 Currency details qualifier | 6345 Currency, coded | 6343 Currency qualifier | 6348 Currency rate base',
      '5402 Rate of exchange',
      '6341 Currency market exchange, coded',
    ],
  ],
  PAT: [
    'Payment terms basis',
    [
      '4279 Payment terms type qualifier',
      'C110 Payment terms: 4277 Terms of payment identification | 1131 Code list qualifier | 3055 Code list responsible agency, coded | 4276 Terms of payment | 4276 Terms of payment',
      'C112 Terms/time information: 2475 Payment time reference, coded | 2009 Time relation, coded | 2151 Type of period, coded | 2152 Number of periods',
    ],
  ],
  LIN: [
    'Line item',
    [
      '1082 Line item number',
      '1229 Action request/notification, coded',
      'C212 Item number identification: 7140 Item number | 7143 Item number type, coded | 1131 Code list qualifier | 3055 Code list responsible agency, coded',
      'C829 Sub-line information: 5495 Sub-line indicator, coded | 1082 Line item number',
      '1222 Configuration level',
      '7083 Configuration, coded',
    ],
  ],
  PIA: [
    'Additional product id',
    [
      '4347 Product id. function qualifier',
      'C212 Item number identification: 7140 Item number | 7143 Item number type, coded | 1131 Code list qualifier | 3055 Code list responsible agency, coded',
    ],
  ],
  IMD: [
    'Item description',
    [
      '7077 Item description type, coded',
      '7081 Item characteristic, coded',
      'C273 Item description: 7009 Item description identification | 1131 Code list qualifier | 3055 Code list responsible agency, coded | 7008 Item description | 7008 Item description | 3453 Language, coded',
      '7383 Surface/layer indicator, coded',
    ],
  ],
  QTY: [
    'Quantity',
    ['C186 Quantity details: 6063 Quantity qualifier | 6060 Quantity | 6411 Measure unit qualifier'],
  ],
  PRI: [
    'Price details',
    [
      'C509 Price information: 5125 Price qualifier | 5118 Price | 5375 Price type, coded | 5387 Price type qualifier | 5284 Unit price basis | 6411 Measure unit qualifier',
      '5213 Sub-line price change, coded',
    ],
  ],
  MOA: [
    'Monetary amount',
    [
      'C516 Monetary amount: 5025 Monetary amount type qualifier | 5004 Monetary amount | 6345 Currency, coded | 6343 Currency qualifier | 4405 Status, coded',
    ],
  ],
  TAX: [
    'Duty/tax/fee details',
    [
      '5283 Duty/tax/fee function qualifier',
      'C241 Duty/tax/fee type: 5153 Duty/tax/fee type, coded | 1131 Code list qualifier | 3055 Code list responsible agency, coded | 5152 Duty/tax/fee type',
      'C533 Duty/tax/fee account detail: 5289 Duty/tax/fee account identification | 1131 Code list qualifier | 3055 Code list responsible agency, coded',
      '5286 Duty/tax/fee assessment basis',
      'C243 Duty/tax/fee detail: 5279 Duty/tax/fee rate identification | 1131 Code list qualifier | 3055 Code list responsible agency, coded | 5278 Duty/tax/fee rate | 5273 Duty/tax/fee rate basis identification | 1131 Code list qualifier | 3055 Code list responsible agency, coded',
      '5305 Duty/tax/fee category, coded',
      '3446 Party tax identification number',
    ],
  ],
  UNS: ['Section control', ['0081 Section identification']],
  CNT: [
    'Control total',
    ['C270 Control: 6069 Control qualifier | 6066 Control value | 6411 Measure unit qualifier'],
  ],
  TDT: [
    'Details of transport',
    [
      '8051 Transport stage qualifier',
      '8028 Conveyance reference number',
      'C220 Mode of transport: 8067 Mode of transport, coded | 8066 Mode of transport',
      'C228 Transport means: 8179 Type of means of transport identification | 8178 Type of means of transport',
      'C040 Carrier: 3127 Carrier identification | 1131 Code list qualifier | 3055 Code list responsible agency, coded | 3128 Carrier name',
      '8101 Transit direction, coded',
    ],
  ],
  CPS: [
    'Consignment packing sequence',
    ['7164 Hierarchical id. number', '7166 Hierarchical parent id.', '7075 Packaging level, coded'],
  ],
  PAC: [
    'Package',
    [
      '7224 Number of packages',
      'C531 Packaging details: 7075 Packaging level, coded | 7233 Packaging related information, coded | 7073 Packaging terms and conditions, coded',
      'C202 Package type: 7065 Type of packages identification | 1131 Code list qualifier | 3055 Code list responsible agency, coded | 7064 Type of packages',
    ],
  ],
  MEA: [
    'Measurements',
    [
      '6311 Measurement application qualifier',
      'C502 Measurement details: 6313 Measurement dimension, coded | 6321 Measurement significance, coded | 6155 Measurement attribute identification | 6154 Measurement attribute',
      'C174 Value/range: 6411 Measure unit qualifier | 6314 Measurement value | 6162 Range minimum | 6152 Range maximum | 6432 Significant digits',
      '7383 Surface/layer indicator, coded',
    ],
  ],
  PCI: [
    'Package identification',
    [
      '4233 Marking instructions, coded',
      'C210 Marks & labels: 7102 Shipping marks | 7102 Shipping marks',
      '8275 Container/package status, coded',
    ],
  ],
  GIN: [
    'Goods identity number',
    [
      '7405 Identity number qualifier',
      'C208 Identity number range: 7402 Identity number | 7402 Identity number',
      'C208 Identity number range: 7402 Identity number | 7402 Identity number',
    ],
  ],
};

/** Code values' meanings, by data element; only those the corpus uses and a few neighbours. */
const codes: Record<string, Record<string, string>> = {
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
  '1001': {
    '220': 'Order',
    '231': 'Purchase order response',
    '351': 'Despatch advice',
    '380': 'Commercial invoice',
    '381': 'Credit note',
  },
  '1225': { '9': 'Original', '29': 'Accepted without amendment', '5': 'Replace' },
  '2005': {
    '2': 'Delivery date/time, requested',
    '17': 'Delivery date/time, estimated',
    '35': 'Delivery date/time, actual',
    '137': 'Document/message date/time',
  },
  '2379': { '102': 'CCYYMMDD', '203': 'CCYYMMDDHHMM' },
  '3035': { BY: 'Buyer', SU: 'Supplier', DP: 'Delivery party', IV: 'Invoicee' },
  '1153': {
    ON: 'Order number (purchase)',
    CT: 'Contract number',
    IV: 'Invoice number',
    VN: 'Order number (vendor)',
  },
  '1229': { '3': 'Changed', '5': 'Accepted without amendment' },
  '4451': { AAI: 'General information' },
  '6063': {
    '12': 'Despatch quantity',
    '21': 'Ordered quantity',
    '47': 'Invoiced quantity',
    '83': 'Backorder quantity',
  },
  '6069': { '2': 'Number of line items in message' },
  '5025': {
    '77': 'Invoice amount',
    '79': 'Total line items amount',
    '124': 'Tax amount',
    '203': 'Line item amount',
  },
  '5125': { AAA: 'Calculation net', AAB: 'Calculation gross' },
  '5153': { VAT: 'Value added tax' },
  '5283': { '7': 'Tax' },
  '6347': { '2': 'Reference currency' },
  '6343': { '4': 'Invoicing currency', '9': 'Order currency' },
  '7143': { EN: 'International Article Numbering Association (EAN)', SA: "Supplier's article number" },
  '7405': { BJ: 'Serial shipping container code' },
  '8051': { '20': 'Main-carriage transport' },
  '8067': { '30': 'Road transport' },
  '6311': { PD: 'Physical dimensions (product ordered)' },
  '6411': { KGM: 'Kilogram', PCE: 'Piece' },
  '3055': { '9': 'EAN (International Article Numbering association)' },
  '0007': { '14': 'EAN (International Article Numbering Association)', ZZZ: 'Mutually defined' },
};

export interface DirectoryElement {
  id: string;
  name: string;
  components?: { id: string; name: string }[];
}

export interface DirectorySegment {
  name: string;
  elements: DirectoryElement[];
}

const named = (text: string) => {
  const space = text.indexOf(' ');
  return { id: text.slice(0, space), name: text.slice(space + 1) };
};

function parse(spec: string): DirectoryElement {
  const colon = spec.indexOf(': ');
  if (colon < 0) return named(spec);
  return {
    ...named(spec.slice(0, colon)),
    components: spec
      .slice(colon + 2)
      .split(' | ')
      .map(named),
  };
}

const table = new Map<string, DirectorySegment>(
  Object.entries(segments).map(([tag, [name, elements]]) => [tag, { name, elements: elements.map(parse) }]),
);

/** The directory's entry for a segment tag, or undefined when this table has none. */
export const edifactSegment = (tag: string): DirectorySegment | undefined => table.get(tag);

/** The meaning of a code value of a data element, or undefined. */
export const edifactCode = (element: string, value: string): string | undefined => codes[element]?.[value];
