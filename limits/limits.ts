/**
 * Pier's tuning limits in one table: the timeouts, intervals, batch and pool sizes, retry waits,
 * size caps and deadlines that the code reads where it uses them, as `limits.<name>`. Each entry
 * keeps its value (the unit is in the name: Ms, Seconds, Bytes, Chars, Mib; a bare count
 * otherwise), the part of pier it tunes, and why it is what it is. docs/limits.md lists them
 * (`npm run limits` writes it; test/docs/limits.test.ts fails when it is stale). This module
 * imports nothing of pier, so every folder may read it (docs/decisions/one-table-of-limits.md).
 */

/** The parts of pier the limits tune, in the order docs/limits.md lists them. */
export const limitAreas = [
  'AS2 receiver',
  'AS2 sender',
  'Sources and targets',
  'Message flow',
  'Worker threads',
  'Runtime',
  'Payload store',
  'HTTP API',
  'Web UI',
  'CLI',
] as const;

/** One limit: its value, the part of pier it tunes, and why it is what it is. */
export interface Limit {
  readonly area: (typeof limitAreas)[number];
  readonly value: number | readonly number[];
  readonly why: string;
}

export const limitTable = {
  // AS2 receiver
  maxAutomaticListeners: {
    area: 'AS2 receiver',
    value: 64,
    why: 'The most listener threads one receiver starts when its setting leaves it to the cores.',
  },
  coresPerListener: {
    area: 'AS2 receiver',
    value: 4,
    why: 'Cores per listener thread when the setting is 0. Each thread batches its own acceptances and has its own pool: on 2 cores two threads cost 20–45 % more CPU per message at 16 (smaller batches, more threads than cores) for a busiest thread of 12–16 % instead of 19–22 %. One per 4 cores keeps 1 thread up to 7 cores and brings the busiest thread under 8 % from about 12.',
  },
  largeBodyFromBytes: {
    area: 'AS2 receiver',
    value: 1024 * 1024,
    why: 'Bodies from this size on are large: stored as they arrive (actors/as2-receiver/read-body.ts) and moved to the pool thread rather than copied (≈ 10 ms of work and more).',
  },
  openOnListenerMaxBytes: {
    area: 'AS2 receiver',
    value: 64 * 1024,
    why: "A message alone is opened on the receiver's thread up to this size: its hops cost about 0.24 ms of CPU, while opening a larger one there would hold up every other request's bytes for milliseconds.",
  },
  judgedPrefixBytes: {
    area: 'AS2 receiver',
    value: 64 * 1024,
    why: 'How much of a body is read to judge one that is refused by its first bytes.',
  },
  maxOpenContexts: {
    area: 'AS2 receiver',
    value: 256,
    why: 'Contexts an opening thread keeps, newest last: a receiver makes a new one every few seconds per pair of parties; beyond this many the oldest go.',
  },
  refusedLingerMs: {
    area: 'AS2 receiver',
    value: 2000,
    why: 'How long a refused client may go on sending before its connection is cut.',
  },
  strangerPrefixBytes: {
    area: 'AS2 receiver',
    value: 64 * 1024,
    why: 'What is kept of a body from no known partner, for the operator (docs/decisions/strangers-and-senders-at-the-as2-receiver.md).',
  },
  busyRetryAfterSeconds: {
    area: 'AS2 receiver',
    value: 30,
    why: 'Seconds a sender over its in-flight limits is asked to wait (503 Retry-After).',
  },
  drainingRetryAfterSeconds: {
    area: 'AS2 receiver',
    value: 10,
    why: "Seconds a sender is asked to wait while the receiver stops: about a restart's time.",
  },
  databaseRetryAfterSeconds: {
    area: 'AS2 receiver',
    value: 5,
    why: 'Seconds an AS2 sender or an API client is asked to wait when the database did not take the request (an outage, a failover): pg_auto_failover promotes its standby within 10–30 s, a switchover within a few.',
  },
  drainQuietMs: {
    area: 'AS2 receiver',
    value: 300,
    why: 'A connection the kernel took but Node had not yet accepted when the port closes is reset, its request lost to the sender: the port closes after this long without a new connection, or after drainQuietMaxMs.',
  },
  drainQuietMaxMs: {
    area: 'AS2 receiver',
    value: 3_000,
    why: 'The longest a stopping receiver drains before its port closes, however often new connections come (drainQuietMs).',
  },
  receiverMaxQueuedDeliveries: {
    area: 'AS2 receiver',
    value: 64,
    why: 'Deliveries waiting at the targets beyond which a received message waits before it is opened (actors/shared/hold-back.ts): about a tenth of a second of what two cores receive, so the documents are written about as fast as the receipts are answered.',
  },
  receiverStopMarginMs: {
    area: 'AS2 receiver',
    value: 1_000,
    why: "Milliseconds before the supervisor's deadline at which a stopping receiver ends what is left.",
  },
  // AS2 sender
  maxTlsAgents: {
    area: 'AS2 sender',
    value: 32,
    why: 'TLS set-ups kept at once; the least recently used one is closed beyond this.',
  },
  maxAnswerBytes: {
    area: 'AS2 sender',
    value: 1024 * 1024,
    why: 'Largest answer an AS2 sender reads (a receipt is a few KiB).',
  },
  maxClosedConnectionsSkipped: {
    area: 'AS2 sender',
    value: 4,
    why: 'Kept-alive connections found closed that one request moves past before it gives up.',
  },
  continueWaitMs: {
    area: 'AS2 sender',
    value: 1000,
    why: 'How long a request sent with `Expect: 100-continue` waits for "100 Continue" before it sends the body anyway (RFC 9110 §10.1.1: a server may never send it), as curl does.',
  },
  checkTimeoutCapSeconds: {
    area: 'AS2 sender',
    value: 30,
    why: 'Longest an AS2 connection check may wait on one step: an operator waits for its answer.',
  },
  receiptExplanationChars: {
    area: 'AS2 sender',
    value: 600,
    why: "How much of the partner's explanation goes into the history line.",
  },
  maxCachedCertificatesAndKeys: {
    area: 'AS2 sender',
    value: 2000,
    why: 'Certificates (and keys) parsed once per distinct PEM: enough for every profile of a large installation; beyond it the cache starts over.',
  },
  // Sources and targets
  filePollerConcurrentTakes: {
    area: 'Sources and targets',
    value: 16,
    why: 'Files the file poller takes at the same time.',
  },
  filePollerMaxQueuedDeliveries: {
    area: 'Sources and targets',
    value: 128,
    why: 'Deliveries waiting at the targets beyond which the file poller holds back (actors/shared/hold-back.ts): the files wait in the directory rather than as queued messages, so the queue, and the time from acceptance to delivery, stay short when the targets are slower than the directory fills.',
  },
  sftpPollerConcurrentTakes: {
    area: 'Sources and targets',
    value: 8,
    why: 'Files the SFTP poller takes at the same time, over the one connection.',
  },
  sftpKeepaliveSeconds: {
    area: 'Sources and targets',
    value: 10,
    why: 'Seconds between keep-alive probes; three unanswered ones end a dead connection.',
  },
  sftpReadPieceBytes: {
    area: 'Sources and targets',
    value: 32 * 1024,
    why: 'Bytes asked for in one SFTP read request.',
  },
  sftpMaxReadsInFlight: {
    area: 'Sources and targets',
    value: 32,
    why: 'SFTP read requests in flight at once.',
  },
  sftpWritePieceBytes: {
    area: 'Sources and targets',
    value: 32 * 1024,
    why: 'Bytes in one SFTP write request: what every SFTP server accepts.',
  },
  sftpMaxWritesInFlight: {
    area: 'Sources and targets',
    value: 32,
    why: 'SFTP write requests in flight at once.',
  },
  writerMaxInHand: {
    area: 'Sources and targets',
    value: 64,
    why: 'Documents written and waiting for their acceptance, at most. About what two cores accept in a tenth of a second: a writer this far behind is not one that finishes in bounded time.',
  },
  writerRecordAfterMs: {
    area: 'Sources and targets',
    value: 100,
    why: "Milliseconds a named file's record waits for others to go with it in one statement: a statement's fixed cost is most of what it costs; the file is named and its receipt gone already, so only the Delivered status waits.",
  },
  writerRequeueRetryMs: {
    area: 'Sources and targets',
    value: 2_000,
    why: 'Milliseconds between two tries to queue again, or record, a handed delivery the database did not answer for.',
  },
  othersLeftoverAfterMs: {
    area: 'Sources and targets',
    value: 30_000,
    why: "Another node's handed file younger than this is left alone even when that node's presence lock is free: just after a database failover a live process takes its lock again within seconds (runtime/cluster/presence.ts, presenceGraceMs is 15 s). Older, its node is taken as gone.",
  },
  leftoverSweepEveryMs: {
    area: 'Sources and targets',
    value: 30_000,
    why: 'Milliseconds between two looks for handed files other nodes left (a process that died for good).',
  },
  temporaryStaleAfterMs: {
    area: 'Sources and targets',
    value: 15 * 60 * 1000,
    why: "A temporary older than this at start is a crash's leftover, not another process's write in hand.",
  },
  compareChunkBytes: {
    area: 'Sources and targets',
    value: 64 * 1024,
    why: 'Bytes read at a time from each of two files compared (a file already at the target is left alone when it holds the same bytes).',
  },
  emailSubjectMaxChars: {
    area: 'Sources and targets',
    value: 200,
    why: 'Mail clients show about this much of a subject; a longer one is cut with an ellipsis.',
  },
  programOutputShownChars: {
    area: 'Sources and targets',
    value: 800,
    why: "Characters of output a result keeps: the result's text is bounded (2048) and says more.",
  },
  programOutputKeptBytes: {
    area: 'Sources and targets',
    value: 4096,
    why: 'Bytes of each of stdout and stderr kept; the rest is read and dropped.',
  },
  maxClaimWindow: {
    area: 'Sources and targets',
    value: 64,
    why: "Most deliveries a target holds (the claim request's own limit is 100).",
  },
  drainStalledBodyMs: {
    area: 'Sources and targets',
    value: 2_000,
    why: 'Milliseconds a body may make no progress while an HTTP server of an actor drains.',
  },
  drainSilentConnectionMs: {
    area: 'Sources and targets',
    value: 1_000,
    why: 'Milliseconds a connection without a request in hand may stay silent while an HTTP server of an actor drains.',
  },
  claimRetryMs: {
    area: 'Sources and targets',
    value: [500, 1_000, 2_000],
    why: "Waits before claiming again after a claim failed (the database is away), in ms: at most 2 s, so a target claims again soon after a failover's new primary takes writes.",
  },
  deliveryStopGraceMs: {
    area: 'Sources and targets',
    value: 2_000,
    why: "How long a target's stop waits for results the database does not take, in ms.",
  },
  resultLingerMs: {
    area: 'Sources and targets',
    value: 25,
    why: "The longest a target's result waits for others to be recorded with it, in milliseconds.",
  },
  maxResultsPerReport: {
    area: 'Sources and targets',
    value: 64,
    why: 'Most results in one report of a target.',
  },
  resultFirstRetryMs: {
    area: 'Sources and targets',
    value: 500,
    why: 'First wait between attempts to record results while the database does not take them, in ms (doubling up to maxResultRetryMs).',
  },
  maxResultRetryMs: {
    area: 'Sources and targets',
    value: 2_000,
    why: "The longest wait between attempts to record results, so results go soon after the database answers again. Results not recorded keep their deliveries' places in the claim window: with waits up to 15 s, a target whose window was full when a failover began claimed nothing for up to 15 s after the new primary took writes, and the other processes took all the work meanwhile. One failed statement per target every 2 s costs nothing while the database is away.",
  },
  // Message flow
  connectionsPerTarget: {
    area: 'Message flow',
    value: 2,
    why: "Connections per target instance: one claim and one report of results may run at once. With the main thread's flow connections (4) and the ORM's pool (10), a process opens at most 14 + 2 × (running target instances) connections to PostgreSQL.",
  },
  connectionsPerSource: {
    area: 'Message flow',
    value: 1,
    why: "Connections per source instance: its acceptances go one batch at a time (the actor batches them, protocol/batcher.ts), and a batch's statements run one after the other.",
  },
  degradedFailedMessages: {
    area: 'Message flow',
    value: 10,
    why: 'More messages than this failed in 24 hours make the system Degraded (docs/api/stats.md, docs/api/conventions.md#limits).',
  },
  maxRememberedNames: {
    area: 'Message flow',
    value: 10_000,
    why: "AS2 names the flow's configuration remembers at most. The names offered come from partners' headers (an unknown sender's AS2-From among them), so the memory is bounded; past it, names are read again.",
  },
  sweepBatchRows: {
    area: 'Message flow',
    value: 500,
    why: 'Rows taken per sweep of the dispatcher; the rest waits for the next tick.',
  },
  firstStallWaitSeconds: {
    area: 'Message flow',
    value: 10,
    why: 'Seconds before the first re-announcement of a queued delivery.',
  },
  stallWaitGrowth: {
    area: 'Message flow',
    value: 4,
    why: 'Each wait before a queued delivery is announced again is this many times the one before.',
  },
  maxStallWaitSeconds: {
    area: 'Message flow',
    value: 600,
    why: 'The longest wait before a queued delivery is announced again, in seconds.',
  },
  // Worker threads
  maxInlineCharsPerBatch: {
    area: 'Worker threads',
    value: 8 * 1024 * 1024,
    why: 'Most inline payload characters in one batch of accepts or results.',
  },
  maxMetricsBatchEntries: {
    area: 'Worker threads',
    value: 10_000,
    why: 'Most metric series or observations in one batch; a tally sends before it holds more (protocol/metrics/tally.ts).',
  },
  eventLoopSampleMs: {
    area: 'Runtime',
    value: 100,
    why: "How often the main thread's event-loop lag (nodejs_eventloop_lag_*) is sampled. prom-client's default, 10 ms, woke an idle server's main thread 100 times a second (600 ms of CPU in 30 s idle); a lag of a few milliseconds still shows in every sample.",
  },
  metricsIntervalMs: {
    area: 'Worker threads',
    value: 1000,
    why: "How often an actor sends what it counted to the main thread's registry.",
  },
  instanceThreadStartMs: {
    area: 'Worker threads',
    value: 60_000,
    why: "How long an instance's second and later thread (a receiver's listener, a file writer's or an AS2 sender's thread) may take to start. They start after the instance is ready (its first thread works meanwhile), so the supervisor's start deadline does not cover them; several threads loading the AS2 modules at once on a busy machine took more than its 15 s.",
  },
  instanceThreadEndMs: {
    area: 'Worker threads',
    value: 2_000,
    why: "How long a terminated thread of an instance's may take to end.",
  },
  coresPerTargetThread: {
    area: 'Worker threads',
    value: 4,
    why: "Cores per thread of a file writer or an AS2 sender when its `threads` setting is 0, as for the receiver's listeners (coresPerListener): a thread per 4 cores keeps one thread up to 7 cores, where more threads than cores cost more CPU per message than they spread, and gives a receiving machine of 16 cores four writer threads for its four listeners.",
  },
  maxAutomaticTargetThreads: {
    area: 'Worker threads',
    value: 64,
    why: 'The most threads one file writer or AS2 sender starts when its setting leaves it to the cores.',
  },
  // Runtime
  testNotificationStartUpMs: {
    area: 'Runtime',
    value: 30_000,
    why: "Beyond one attempt's own timeout, how long a test notification's answer waits for the worker to start and send.",
  },
  presenceGraceMs: {
    area: 'Runtime',
    value: 15_000,
    why: "How long this process holds its presence lock before it reads other processes' free locks as their death. After a failover every process takes its lock again on the new primary: each retries every second, and finding the primary waits up to 3 s per node that does not answer.",
  },
  dispatchTickMs: {
    area: 'Runtime',
    value: 1000,
    why: 'Milliseconds between two runs of the retry and stall sweeps.',
  },
  recoveryEveryTicks: {
    area: 'Runtime',
    value: 5,
    why: "Every this many dispatcher ticks, dead processes' claims and undispatched messages are looked for.",
  },
  handedUnnamedAfterMs: {
    area: 'Runtime',
    value: 60_000,
    why: 'A handed delivery this process still holds this long after its acceptance is taken back and queued: its file is named within milliseconds of the commit and its record tried again every 2 s (writerRequeueRetryMs), so one still held a minute later is one its writer lost (a thread started again while the database was away, an acceptance given up as failed before its commit could be seen). Taken back early, the queue finds the file there with the same bytes and counts it delivered.',
  },
  dispatchGraceMs: {
    area: 'Runtime',
    value: 2000,
    why: 'An accepted message younger than this is left to the process that accepted it.',
  },
  ackSweepBatch: {
    area: 'Runtime',
    value: 50,
    why: 'Interchanges the EDI acknowledgement sweep looks at per run: the rest wait for the next one.',
  },
  ackSweepEveryMs: {
    area: 'Runtime',
    value: 5000,
    why: 'Milliseconds between two runs of the EDI acknowledgement sweep.',
  },
  feedReadPageRows: {
    area: 'Runtime',
    value: 1000,
    why: 'Most history lines the event feed reads by one statement; a larger burst is read, and handed out, page by page.',
  },
  feedUnwokenLookMs: {
    area: 'Runtime',
    value: 1000,
    why: 'Milliseconds after which the feed looks at the table without being woken: an announcement missed (the listener reconnecting) delays lines by at most this.',
  },
  feedLookEveryMs: {
    area: 'Runtime',
    value: 20,
    why: "Fewest milliseconds from one look at the table to the next. Each look is three or four small statements, and under load it is woken by every commit: at most 50 looks a second keeps the feed's share of PostgreSQL and of the main thread small, for at most this much more latency.",
  },
  feedRetryMs: {
    area: 'Runtime',
    value: 1000,
    why: 'Milliseconds before the feed tries again after a failed read.',
  },
  feedRestPerBusy: {
    area: 'Runtime',
    value: 9,
    why: 'After a batch, the feed rests this many times what the batch took, so the fan-out takes at most about a tenth of the main thread however many clients watch.',
  },
  initialOldSpaceMib: {
    area: 'Runtime',
    value: 128,
    why: "The old generation every thread's heap starts with: a received MiB lives briefly as one buffer counted against it, and at V8's default the file writer ran a full mark-compact every twenty or so documents (benchmarks/history/2026-11-26-a-compressed-document-inflated-once-and-handed-on.md).",
  },
  turbofanInvocations: {
    area: 'Runtime',
    value: 500,
    why: "Calls' worth of V8's budget before a function is optimized fully (V8's default: 3,000), set by `pier serve`: each thread learns the AS2 path on its own, and at the default it was still being optimized after 15,000 messages (benchmarks/history/2026-11-28-turbofan-sooner.md).",
  },
  reconcileEveryMs: {
    area: 'Runtime',
    value: 5000,
    why: 'How often a process looks at the stored configurations and actions without being told.',
  },
  minimumRoleStopMs: {
    area: 'Runtime',
    value: 500,
    why: "Every role's actors get at least this long to stop, even when an earlier role used the deadline up.",
  },
  primaryProbeTimeoutMs: {
    area: 'Runtime',
    value: 3_000,
    why: 'How long a probe for the primary waits for a node that does not answer (a dead machine drops packets).',
  },
  // Payload store
  inlineMaxBytes: {
    area: 'Payload store',
    value: 64 * 1024,
    why: 'Stages up to this size are kept in their payload row (docs/decisions/small-stages-are-kept-in-the-database.md).',
  },
  inflatedAtOnceMaxBytes: {
    area: 'Payload store',
    value: 4 * 1024 * 1024,
    why: "Documents up to this size (with their headers) are inflated in one synchronous call: a stream inflates a quarter MiB per trip to libuv's thread pool and back, and the file writer then writes each piece with another; one call holds the reading thread about a millisecond per MiB.",
  },
  inflateChunkBytes: {
    area: 'Payload store',
    value: 256 * 1024,
    why: 'How many bytes zlib makes per chunk while a stage is read: a quarter MiB, as streamSliceBytes says why.',
  },
  directMinBytes: {
    area: 'Payload store',
    value: 256 * 1024,
    why: 'Documents from this size up are written direct; below it the page cache costs less than waiting for the disk.',
  },
  directSlabBytes: {
    area: 'Payload store',
    value: 1024 * 1024,
    why: 'One aligned buffer: a piece of a document at a time (a multiple of the WebAssembly page, 64 KiB).',
  },
  directMaxSlabs: {
    area: 'Payload store',
    value: 4,
    why: 'Aligned buffers kept; a write waits for one when all are writing (each holds the disk for about a millisecond).',
  },
  storeStartDeadlineMs: {
    area: 'Payload store',
    value: 30_000,
    why: 'How long the start may wait on the payload store before it gives up.',
  },
  s3PartBytes: {
    area: 'Payload store',
    value: 8 * 1024 * 1024,
    why: 'Size of a multipart part, and the largest object sent in one PUT (docs/decisions/part-size-8-mib-two-part-buffers-pier-s-own-multipart-upload.md).',
  },
  s3PartsInFlight: {
    area: 'Payload store',
    value: 2,
    why: 'Part buffers an upload holds, the one being filled included: its memory is this many parts.',
  },
  s3AbortRetrySeconds: {
    area: 'Payload store',
    value: [1, 5, 30, 120, 600],
    why: 'Seconds between the background attempts to abort an upload the store did not take.',
  },
  streamSliceBytes: {
    area: 'Payload store',
    value: 256 * 1024,
    why: "How many bytes a stream of a stored document reads or writes at a time, and how much a zlib stream makes per chunk. Every slice is a trip to libuv's thread pool and back: at Node's 16–64 KiB defaults a 1 MiB document cost about four times the CPU to inflate, store or read (benchmarks/history/2026-11-24-streams-a-quarter-mebibyte-at-a-time.md). Also what one such stream holds in memory at most.",
  },
  // HTTP API
  defaultBodyLimitBytes: {
    area: 'HTTP API',
    value: 1024 * 1024,
    why: 'Default request body limit of the API (docs/api/conventions.md#limits).',
  },
  jwtClockToleranceSeconds: {
    area: 'HTTP API',
    value: 30,
    why: 'Seconds a clock may be off between the identity provider and pier.',
  },
  configFileMaxNesting: {
    area: 'HTTP API',
    value: 64,
    why: 'Levels of maps and lists a configuration file may nest; a real one uses about eight.',
  },
  configFileMaxAliases: {
    area: 'HTTP API',
    value: 100,
    why: 'Aliases (`*name`) a configuration file may hold, and expansions it may make as the yaml package counts them (its default); an export writes none.',
  },
  hstsMaxAgeSeconds: {
    area: 'HTTP API',
    value: 365 * 24 * 60 * 60,
    why: "HSTS max-age: one year, as OWASP and the HSTS preload list ask. No includeSubDomains: pier's host name may share its domain with hosts pier knows nothing of (docs/decisions/hsts.md).",
  },
  notReadyRetryAfterSeconds: {
    area: 'HTTP API',
    value: 10,
    why: "Seconds a client is asked to wait while the process is not ready: about a restart's time, so a rolling restart is not felt.",
  },
  auditVerifyBatchRows: {
    area: 'HTTP API',
    value: 1000,
    why: 'Audit events read per statement while the chain is verified.',
  },
  maxCertificateUsersListed: {
    area: 'HTTP API',
    value: 25,
    why: 'At most this many users are listed in a CERTIFICATE_IN_USE answer (docs/api/conventions.md#limits).',
  },
  configBodyLimitBytes: {
    area: 'HTTP API',
    value: 16 * 1024 * 1024,
    why: "Bytes of a plan's or apply's request body (docs/configuration-files.md): a configuration file with thousands of partners and their certificates is several MiB, past the API's 1 MiB.",
  },
  eventStreamRetryMs: {
    area: 'HTTP API',
    value: 3000,
    why: "Milliseconds an event stream client waits before it reconnects (sent as the stream's `retry`).",
  },
  storeCheckEveryMs: {
    area: 'HTTP API',
    value: 5_000,
    why: "GET /ready's payload store probe writes, reads and deletes a small blob: not more often than this, however often asked.",
  },
  storeCheckDeadlineMs: {
    area: 'HTTP API',
    value: 2_000,
    why: 'Bound of one payload store check of GET /ready, below the usual probe timeout of a load balancer.',
  },
  healthDatabaseTimeoutMs: {
    area: 'HTTP API',
    value: 2000,
    why: 'How long GET /health waits for the database before it answers 503.',
  },
  jsonSpoolReadBytes: {
    area: 'HTTP API',
    value: 64 * 1024,
    why: "How much of a JSON send's spool one read takes.",
  },
  jsonWholeValueMaxChars: {
    area: 'HTTP API',
    value: 1024 * 1024,
    why: 'The longest JSON value of an EDI send taken whole: a segment with its annotations is far smaller.',
  },
  jsonInMemoryMaxBytes: {
    area: 'HTTP API',
    value: 8 * 1024 * 1024,
    why: "Up to this size a payload's JSON form is made in memory and sent with its length.",
  },
  jsonReparsedMaxBytes: {
    area: 'HTTP API',
    value: 1024 * 1024,
    why: "JSON bodies this small are parsed again on a syntax error, so the answer carries the decoder's own text.",
  },
  maxUploadBytes: {
    area: 'HTTP API',
    value: 64 * 1024 * 1024,
    why: 'Largest file sent by hand (docs/api/conventions.md#limits).',
  },
  storageTestDeadlineMs: {
    area: 'HTTP API',
    value: 9_000,
    why: 'Bound of a storage settings test: below the 10 s limit of docs/api/conventions.md#limits, leaving room for reading the settings and answering.',
  },
  serverLogLineChars: { area: 'HTTP API', value: 8 * 1024, why: 'Characters of one server log line kept.' },
  flowStopReserveMs: {
    area: 'HTTP API',
    value: 5_000,
    why: "Milliseconds of the stop's deadline kept for the message flow's own drain: requests in hand wait for at most the rest, so a stalled upload cannot leave the actors no time at all.",
  },
  // Web UI
  firstRunWrongCodesPerAddress: {
    area: 'Web UI',
    value: 10,
    why: "Wrong first-run codes a client address may send within the limiter's window.",
  },
  oidcSignInPendingSeconds: {
    area: 'Web UI',
    value: 10 * 60,
    why: 'How long a started sign-in may take at the provider, in seconds.',
  },
  signInFailuresPerName: {
    area: 'Web UI',
    value: 5,
    why: "Failed sign-ins one user name may have within the limiter's window.",
  },
  signInFailuresPerAddress: {
    area: 'Web UI',
    value: 20,
    why: "Failed sign-ins one client address may have within the limiter's window.",
  },
  sessionIdleSeconds: { area: 'Web UI', value: 30 * 60, why: 'A session unused this long ends.' },
  sessionAbsoluteSeconds: {
    area: 'Web UI',
    value: 12 * 60 * 60,
    why: 'A session ends this long after sign-in, used or not.',
  },
  sessionTouchEverySeconds: {
    area: 'Web UI',
    value: 60,
    why: 'last_seen_at is written at most this often per session.',
  },
  ediTreeMaxBytes: {
    area: 'Web UI',
    value: 2 * 1024 * 1024,
    why: 'Larger interchanges are offered as JSON rather than drawn: a browser tree of 100,000 segments helps no one.',
  },
  keptFormLifetimeMs: {
    area: 'Web UI',
    value: 10 * 60 * 1000,
    why: "How long a refused form's write-only values are kept for the form drawn again.",
  },
  maxKeptForms: {
    area: 'Web UI',
    value: 500,
    why: 'Refused forms held at once; the oldest goes first, so memory stays bounded.',
  },
  exactCountUpTo: {
    area: 'Web UI',
    value: 1000,
    why: "The messages page counts exactly up to this many past the page's start; beyond, the planner's estimate.",
  },
  pastedJsonMaxBytes: {
    area: 'Web UI',
    value: 8 * 1024 * 1024,
    why: "What the send-as-JSON form takes as text; a larger document is sent as a file (up to the form's 20 MiB).",
  },
  jsonPreviewChars: {
    area: 'Web UI',
    value: 64 * 1024,
    why: 'A JSON preview longer than this is cut: the person checks the envelope and the first sets.',
  },
  freePortTries: {
    area: 'Web UI',
    value: 200,
    why: 'Ports the setup wizard tries before giving up and suggesting the default (the start then says it is taken).',
  },
  // CLI
  sameSignalWithinMs: {
    area: 'CLI',
    value: 1_000,
    why: 'A Ctrl-C under `npm start` arrives twice at once (the terminal signals the process group and npm passes its own on): a signal this soon after the first is the same request.',
  },
  maxClockSkewSeconds: {
    area: 'CLI',
    value: 5,
    why: 'pier doctor: clocks more than this many seconds apart fail (docs/decisions/thresholds.md).',
  },
  partnerStepTimeoutMs: {
    area: 'CLI',
    value: 10_000,
    why: "pier doctor: longest one step of one partner's check may take (the partner page allows 30 s).",
  },
  partnerChecksAtOnce: { area: 'CLI', value: 4, why: 'pier doctor: partners checked at once.' },
  portAskTimeoutMs: {
    area: 'CLI',
    value: 3_000,
    why: 'pier doctor: how long a taken port has to answer who it is.',
  },
  unopenableValuesListed: {
    area: 'CLI',
    value: 10,
    why: 'pier doctor: at most this many unopenable secret values are listed; the rest are counted.',
  },
} as const satisfies Record<string, Limit>;

type Value<V> = V extends number ? number : readonly number[];

/** Every limit's value by name: what the code reads. Frozen, so no reader changes it for the others. */
export const limits = Object.freeze(
  Object.fromEntries(
    Object.entries(limitTable).map(([name, limit]) => [
      name,
      typeof limit.value === 'number' ? limit.value : Object.freeze([...limit.value]),
    ]),
  ),
) as unknown as { readonly [Name in keyof typeof limitTable]: Value<(typeof limitTable)[Name]['value']> };
