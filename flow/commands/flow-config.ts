/**
 * What routing read last (which names are organizations or partners, and the routes), with the
 * version of flow_config_version it was read at (Migration0090FlowConfigVersion). An
 * acceptance plans from it when it knows every name offered, and its statement stores nothing
 * unless the version is still the same (accept.ts): the same answer as reading parties and
 * routes first, one round trip less for every batch. Any change to the three tables, from any
 * process, changes the version at its commit, so a snapshot that sees the version also sees
 * exactly the parties and routes it was read with.
 */
import { emptyDirectory, type InterchangeDirectory, type PartyKind } from './accept-plan.js';
import type { RouteRow } from '../tables/routing.js';
import { limits } from '../../limits/limits.js';

export interface KnownConfig {
  version: string;
  kinds: Map<string, Set<PartyKind>>;
  routes: RouteRow[];
  /** Which party each interchange id names, and who may speak for whom (read whole: parties have few ids). */
  directory: InterchangeDirectory;
}

export class FlowConfig {
  #version: string | null = null;
  #routes: RouteRow[] = [];
  #directory: InterchangeDirectory = emptyDirectory();
  /** Every name read at #version: its kinds, empty when it is neither. */
  readonly #names = new Map<string, Set<PartyKind>>();

  /** What is known for these names, or null when a name was never read at this version. */
  known(names: Iterable<string>): KnownConfig | null {
    if (this.#version === null) return null;
    const kinds = new Map<string, Set<PartyKind>>();
    for (const name of names) {
      const found = this.#names.get(name);
      if (found === undefined) return null;
      if (found.size > 0) kinds.set(name, found);
    }
    return { version: this.#version, kinds, routes: this.#routes, directory: this.#directory };
  }

  /**
   * Remembers what one statement read at `version`: the routes and the kinds of `names` (a name
   * missing from `kinds` is neither). A different version replaces all that was known; reads
   * that finish out of order only cost the next acceptance a read again.
   */
  learn(
    version: string,
    names: readonly string[],
    kinds: Map<string, Set<PartyKind>>,
    routes: RouteRow[],
    directory: InterchangeDirectory,
  ) {
    if (version !== this.#version || this.#names.size + names.length > limits.maxRememberedNames)
      this.#names.clear();
    this.#version = version;
    this.#routes = routes;
    this.#directory = directory;
    for (const name of names) this.#names.set(name, kinds.get(name) ?? new Set());
  }
}
