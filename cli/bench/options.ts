/** The options of `pier bench as2` and `pier bench self`, as commander parses them (cli/commands/bench.ts). */
export interface CommonOptions {
  concurrency: number[];
  connections: ('keepalive' | 'new')[];
  messages: number;
  duration?: number;
  warmUp: number;
  timeout: number;
  size: number;
  json?: boolean;
  report?: string;
}

export interface As2Options extends CommonOptions {
  url?: string;
  from?: string;
  to?: string;
  key?: string;
  cert?: string;
  partnerCert?: string;
  receiptCert?: string;
  partner?: string;
  organization?: string;
  sign?: string;
  encrypt?: string;
  compress?: boolean;
  receipts?: string;
  receiptUrl?: string;
  /** https: a PEM file of certificates to trust besides the system's; false: --no-tls-verify. */
  tlsCa?: string;
  tlsVerify?: boolean;
  file?: string;
  set?: string;
  keepSet?: boolean;
  compare?: string;
  rounds?: number;
  serverPid?: number;
  compareServerPid?: number;
}
