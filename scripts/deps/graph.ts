/**
 * What `npm run deps` checks on the import edges: the folder graph (pairs of folders one imports
 * from the other, with counts), the pairs that depend both ways, and import cycles between files.
 */
import type { ImportEdge } from './imports.js';

/** The folder a file belongs to, `depth` folders deep; files at the top are `(root)`. */
export function folderOf(file: string, depth: number): string {
  const dirs = file.split('/').slice(0, -1);
  return dirs.length === 0 ? '(root)' : dirs.slice(0, depth).join('/');
}

/**
 * Import counts between folders, keyed `from → to`. With `within`, only the subfolders of that
 * folder one level down (`runtime/alerts`, `runtime/dispatch`, …; its own files are `runtime`).
 */
export function folderEdges(edges: ImportEdge[], depth: number, within?: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const edge of edges) {
    if (within !== undefined && !(edge.from.startsWith(`${within}/`) && edge.to.startsWith(`${within}/`))) {
      continue;
    }
    const from = folderOf(edge.from, depth);
    const to = folderOf(edge.to, depth);
    // A folder and the folders inside it are one unit at this depth.
    if (from === to || to.startsWith(`${from}/`) || from.startsWith(`${to}/`)) continue;
    const key = `${from} → ${to}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The pairs of folders that import each other, as `a ⇄ b (a→b count / b→a count)`. */
export function twoWayPairs(counts: Map<string, number>): string[] {
  return [...counts.keys()]
    .map((key) => key.split(' → ') as [string, string])
    .filter(([a, b]) => a < b && counts.has(`${b} → ${a}`))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([a, b]) => `${a} ⇄ ${b} (${counts.get(`${a} → ${b}`)} / ${counts.get(`${b} → ${a}`)})`);
}

/**
 * The import cycles between files: each strongly connected group of two or more files (or a file
 * importing itself), as one cycle through it, `a → b → … → a`. Tarjan's algorithm, iterative so a
 * long chain of imports cannot overflow the stack.
 */
export function importCycles(edges: ImportEdge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from)!.push(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let counter = 0;
  for (const start of [...next.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { file: string; child: number }[] = [{ file: start, child: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const children = next.get(frame.file)!;
      if (frame.child < children.length) {
        const child = children[frame.child++]!;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ file: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.file, Math.min(low.get(frame.file)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.file;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.file)!));
      }
      if (low.get(frame.file) === index.get(frame.file)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.file);
        if (group.length > 1 || children.includes(frame.file)) groups.push(group);
      }
    }
  }
  return groups.map((group) => cycleThrough(group, next)).sort();
}

/** One cycle inside a strongly connected group, from its first file by name back to it. */
function cycleThrough(group: string[], next: Map<string, string[]>): string {
  const members = new Set(group);
  const start = [...group].sort()[0]!;
  // Breadth-first from the start to find the shortest way back to it inside the group.
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const child of next.get(file)!) {
      if (!members.has(child)) continue;
      if (child === start) {
        const path = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        path.unshift(start);
        return path.join(' → ');
      }
      if (!cameFrom.has(child)) {
        cameFrom.set(child, file);
        queue.push(child);
      }
    }
  }
  return `${start} → ${start}`;
}
