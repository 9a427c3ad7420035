/**
 * Every metric pier counts in more than one thread, in one table: its name, kind, help and
 * labels. Actor threads count into a tally (tally.ts) that travels to the main thread in
 * batches; the main thread's registry (runtime/metrics/) makes one prom-client metric per row.
 *
 * Labels are bounded by configuration, never by traffic: instance, target, source and partner
 * names are records an operator created (an AS2 sender that names no configured partner is
 * counted as `unknown`), outcomes and dispositions come from fixed tables. A message id, a file
 * name or an AS2-From header never becomes a label.
 */

/** Seconds, from a local disk write to a slow partner's day of retries. */
const latencyBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400];
/** Seconds of one payload store call: local disk to a distant S3 bucket. */
const storeBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metricCatalog = {
  pier_database_failovers_total: {
    kind: 'counter',
    help: 'Times this process found another node of a multi-host DATABASE_URL primary (a failover or switchover)',
    labels: [],
  },
  pier_messages_accepted_total: {
    kind: 'counter',
    help: 'Messages a source instance brought in, by outcome (accepted, refused, duplicate)',
    labels: ['source', 'outcome'],
  },
  pier_delivery_attempts_total: {
    kind: 'counter',
    help: 'Delivery attempts a target instance made, by outcome (ok, retryable_failure, permanent_failure)',
    labels: ['target', 'outcome'],
  },
  pier_delivery_retries_total: {
    kind: 'counter',
    help: 'Delivery attempts after the first (retries) a target instance made',
    labels: ['target'],
  },
  pier_deliveries_finished_total: {
    kind: 'counter',
    help: 'Deliveries that reached a final state, by target and outcome (delivered, failed, stalled)',
    labels: ['target', 'outcome'],
  },
  pier_delivery_latency_seconds: {
    kind: 'histogram',
    help: "From a delivery's creation (the message's acceptance) to its final state, by target",
    labels: ['target', 'outcome'],
    buckets: latencyBuckets,
  },
  pier_as2_received_total: {
    kind: 'counter',
    help: 'AS2 messages received, by partner and the disposition answered (processed or the error modifier)',
    labels: ['partner', 'disposition'],
  },
  pier_as2_security_failures_total: {
    kind: 'counter',
    help: 'Received AS2 messages refused by a security check (signature, decryption, mic), by partner',
    labels: ['partner', 'check'],
  },
  pier_as2_mdns_total: {
    kind: 'counter',
    help: 'AS2 receipts (MDNs) sent to partners (direction=sent) or received from them (direction=received), by outcome',
    labels: ['direction', 'outcome'],
  },
  pier_notifications_total: {
    kind: 'counter',
    help: 'Alert notifications sent by a notifier instance, by outcome (delivered, failed)',
    labels: ['notifier', 'outcome'],
  },
  pier_payload_store_seconds: {
    kind: 'histogram',
    help: 'Payload store calls, by backend (local, s3) and operation; failed calls have outcome=error',
    labels: ['backend', 'operation', 'outcome'],
    buckets: storeBuckets,
  },
} as const satisfies Record<string, CatalogEntry>;

export interface CatalogEntry {
  kind: 'counter' | 'histogram';
  help: string;
  labels: readonly string[];
  buckets?: readonly number[];
}

export type MetricName = keyof typeof metricCatalog;
export type CounterName = {
  [N in MetricName]: (typeof metricCatalog)[N]['kind'] extends 'counter' ? N : never;
}[MetricName];
export type HistogramName = Exclude<MetricName, CounterName>;
/** The labels a metric takes, every one of them, as strings. */
export type LabelsOf<N extends MetricName> = Record<(typeof metricCatalog)[N]['labels'][number], string>;

export const metricNames = Object.keys(metricCatalog) as MetricName[];
