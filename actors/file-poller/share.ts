/**
 * Which of a file poller's threads takes a file: each thread looks at the whole directory and
 * takes only the files of its share, so no thread is in the path of every file and no two take
 * the same one. The share is a hash of the file's path below base_directory, the same at every
 * look, so a file is watched for completeness (two looks) and taken by one thread only.
 */

/** The thread (0 to `threads` - 1) whose share holds `rel`: FNV-1a over its UTF-16 code units. */
export function threadOfFile(rel: string, threads: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < rel.length; i++) hash = Math.imul(hash ^ rel.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % threads;
}

/** Whether thread `number` (1 is the first) of `threads` takes `rel`. */
export function shareOf(threads: number, number: number): (rel: string) => boolean {
  return threads <= 1 ? () => true : (rel) => threadOfFile(rel, threads) === number - 1;
}
