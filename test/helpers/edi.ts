/** Interchanges built by tests: X12 and EDIFACT, with every count and control number right unless a test says otherwise. */

export interface X12Set {
  type: string;
  control: string;
  /** Segments between ST and SE, without terminators (`BEG*00*SA*PO1**20261123`). */
  body: string[];
  /** SE01 as sent, when a test wants it wrong. */
  seCount?: number;
  /** SE02 as sent, when a test wants it to differ from ST02. */
  seControl?: string;
}

export interface X12Options {
  sender: [qualifier: string, id: string];
  receiver: [qualifier: string, id: string];
  control: number;
  groups: { functionalId: string; control: string; sets: X12Set[]; geCount?: number }[];
  version?: string;
}

const pad = (s: string, n: number) => s.padEnd(n, ' ');

export function x12Interchange(o: X12Options): string {
  const ctrl = String(o.control).padStart(9, '0');
  const version = o.version ?? '00401';
  const lines = [
    `ISA*00*${pad('', 10)}*00*${pad('', 10)}*${pad(o.sender[0], 2)}*${pad(o.sender[1], 15)}*${pad(o.receiver[0], 2)}*${pad(o.receiver[1], 15)}*261123*1200*${version >= '00402' ? '^' : 'U'}*${version}*${ctrl}*0*P*>`,
  ];
  for (const g of o.groups) {
    lines.push(`GS*${g.functionalId}*${o.sender[1]}*${o.receiver[1]}*20261123*1200*${g.control}*X*004010`);
    for (const s of g.sets) {
      // One push per segment: a large set's segments would overflow a spread's arguments.
      lines.push(`ST*${s.type}*${s.control}`);
      for (const segment of s.body) lines.push(segment);
      lines.push(`SE*${s.seCount ?? s.body.length + 2}*${s.seControl ?? s.control}`);
    }
    lines.push(`GE*${g.geCount ?? g.sets.length}*${g.control}`);
  }
  lines.push(`IEA*${o.groups.length}*${ctrl}`);
  return lines.map((l) => `${l}~\n`).join('');
}

export interface EdifactMessage {
  type: string;
  ref: string;
  body: string[];
  untCount?: number;
}

export function edifactInterchange(o: {
  sender: [id: string, qualifier: string];
  receiver: [id: string, qualifier: string];
  ref: string;
  messages: EdifactMessage[];
  unzCount?: number;
}): string {
  const lines = [
    `UNB+UNOA:3+${o.sender[0]}:${o.sender[1]}+${o.receiver[0]}:${o.receiver[1]}+261123:1200+${o.ref}`,
  ];
  for (const m of o.messages) {
    lines.push(
      `UNH+${m.ref}+${m.type}:D:96A:UN`,
      ...m.body,
      `UNT+${m.untCount ?? m.body.length + 2}+${m.ref}`,
    );
  }
  lines.push(`UNZ+${o.unzCount ?? o.messages.length}+${o.ref}`);
  return `UNA:+.? '${lines.map((l) => `${l}'`).join('\n')}`;
}

/** A purchase order between two ids, with `lines` PO1 lines (to make it as large as a test needs). */
export function purchaseOrder(control: number, sender: string, receiver: string, lines = 1): string {
  const body = ['BEG*00*SA*PO1**20261123'];
  for (let i = 1; i <= lines; i++) body.push(`PO1*${i}*10*EA*2.5**VP*ITEM${i}`);
  return x12Interchange({
    sender: ['ZZ', sender],
    receiver: ['ZZ', receiver],
    control,
    groups: [
      { functionalId: 'PO', control: String(control), sets: [{ type: '850', control: '0001', body }] },
    ],
  });
}

/** The `documents` of POST /messages/edi: one EDIFACT ORDERS D.96A with its BGM, no line breaks. */
export const ordersAsJson = {
  standard: 'edifact',
  line_break: '',
  sets: [{ type: 'ORDERS:D:96A:UN', segments: [{ tag: 'BGM', elements: [['220'], 'PO-9', '9'] }] }],
};
