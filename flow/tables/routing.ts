/**
 * Route matching (docs/api/routes.md, docs/api/messages.md): a message goes to every target instance whose route
 * names its source instance and its parties (or `*`); one delivery per target. A message
 * sent by hand goes to the target it names.
 */

export interface RouteRow {
  source_plugin: string;
  from_party: string;
  to_party: string;
  target_plugin: string;
}

export interface Routable {
  source_name: string;
  from_party: string;
  to_party: string;
  target_hint: string | null;
}

const matches = (pattern: string, value: string) => pattern === '*' || pattern === value;

export function targetsFor(message: Routable, routes: readonly RouteRow[]): string[] {
  if (message.target_hint) return [message.target_hint];
  const targets = routes
    .filter(
      (r) =>
        r.source_plugin === message.source_name &&
        matches(r.from_party, message.from_party) &&
        matches(r.to_party, message.to_party),
    )
    .map((r) => r.target_plugin);
  return [...new Set(targets)].sort();
}

/** Targets the routes name between two parties, whatever the source (a message sent by hand). */
export function targetsBetween(from: string, to: string, routes: readonly RouteRow[]): string[] {
  const targets = routes
    .filter((r) => matches(r.from_party, from) && matches(r.to_party, to))
    .map((r) => r.target_plugin);
  return [...new Set(targets)].sort();
}
