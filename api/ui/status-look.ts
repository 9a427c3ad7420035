/**
 * How each message status and direction is drawn on the dashboard, in one table: a tone that
 * follows the status (failed red, delivered green, in progress blue, waiting amber), and a
 * line pattern and a word beside it, so the chart reads without colour (colour-blind readers,
 * a grey-scale print). The tones are the style sheet's theme colours, so both themes hold.
 */
export type Tone = 'ok' | 'bad' | 'warn' | 'info' | 'muted' | 'accent2';
export type Pattern = 'solid' | 'dashed' | 'dotted' | 'dash-dot' | 'long-dash';

export interface SeriesLook {
  tone: Tone;
  pattern: Pattern;
  /** What the status means, for the legend. */
  meaning: string;
}

export const seriesLooks: Record<string, SeriesLook> = {
  inbound: { tone: 'muted', pattern: 'solid', meaning: 'received from partners' },
  outbound: { tone: 'accent2', pattern: 'dashed', meaning: 'sent to partners' },
  Received: { tone: 'info', pattern: 'dotted', meaning: 'accepted, not yet routed' },
  InProgress: { tone: 'info', pattern: 'solid', meaning: 'being delivered' },
  Retrying: { tone: 'warn', pattern: 'dashed', meaning: 'a delivery waits to retry' },
  AwaitingReceipt: { tone: 'info', pattern: 'dash-dot', meaning: 'sent, waiting for the receipt' },
  Stalled: { tone: 'bad', pattern: 'dotted', meaning: 'no target took it' },
  Delivered: { tone: 'ok', pattern: 'solid', meaning: 'delivered' },
  NotRouted: { tone: 'warn', pattern: 'dotted', meaning: 'no route matched' },
  Refused: { tone: 'bad', pattern: 'dashed', meaning: 'refused by the receiver' },
  Error: { tone: 'bad', pattern: 'solid', meaning: 'failed' },
};

export function lookOf(label: string): SeriesLook {
  return seriesLooks[label] ?? { tone: 'muted', pattern: 'long-dash', meaning: '' };
}

/** The dash of each pattern for the chart's canvas (uPlot `dash`), in pixels. */
export const dashes: Record<Pattern, number[]> = {
  solid: [],
  dashed: [8, 4],
  dotted: [2, 4],
  'dash-dot': [10, 4, 2, 4],
  'long-dash': [16, 6],
};
