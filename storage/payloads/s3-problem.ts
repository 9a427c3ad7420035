/**
 * How a failed S3 call reads, in a module of its own without the AWS SDK, so the storage probe
 * (storage/payloads/probe.ts, which every API process loads for /ready) can word a failure
 * without loading the SDK into processes that never use S3.
 */
/** The service's or the network's words for a failed call, e.g. `NoSuchBucket: The specified bucket does not exist`. */
export function s3Problem(error: unknown, limits?: { callMs: number }): string {
  if (!(error instanceof Error)) return String(error);
  const e = error as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  if (e.name === 'AbortError' || e.name === 'TimeoutError') {
    return `no answer within ${Math.round((limits?.callMs ?? 0) / 1000)} s`;
  }
  const code = e.code ?? e.name;
  const words = e.message && e.message !== code ? e.message : `HTTP ${e.$metadata?.httpStatusCode ?? '?'}`;
  return code && code !== 'Error' ? `${code}: ${words}` : words;
}
