/**
 * Route matching (docs/api/routes.md, docs/api/messages.md): a message goes to every target instance whose route
 * names its source instance and its parties (or `*`), and, when the route names a document
 * type, whose payload's EDI envelope names that type (docs/partner-setup.md, "EDI routing and
 * acknowledgements"); one delivery per target. A message sent by hand goes to the target it names.
 */

export interface RouteRow {
  source_plugin: string;
  from_party: string;
  to_party: string;
  /** An X12 transaction set id or EDIFACT message type, or `*` for any payload. */
  document_type: string;
  target_plugin: string;
}

export interface Routable {
  source_name: string;
  from_party: string;
  to_party: string;
  target_hint: string | null;
  /** The document types the payload's EDI envelope names; none when it is not EDI. */
  document_types?: readonly string[] | null;
}

const matches = (pattern: string, value: string) => pattern === '*' || pattern === value;

/** A route naming a document type takes only payloads whose envelope names it. */
const typeMatches = (pattern: string, types: readonly string[] | null | undefined) =>
  pattern === '*' || (types ?? []).includes(pattern);

export function targetsFor(message: Routable, routes: readonly RouteRow[]): string[] {
  if (message.target_hint) return [message.target_hint];
  // A loop, not callbacks made per message: V8 compiles such a callback again after each
  // collection (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
  const targets = new Set<string>();
  for (const r of routes)
    if (
      r.source_plugin === message.source_name &&
      matches(r.from_party, message.from_party) &&
      matches(r.to_party, message.to_party) &&
      typeMatches(r.document_type, message.document_types)
    )
      targets.add(r.target_plugin);
  return [...targets].sort();
}

/**
 * Targets the routes name between two parties, whatever the source (a message sent by hand,
 * an acknowledgement pier sends). With `documentTypes`, routes naming another type are left out;
 * without, the payload is not known yet and every route between the parties counts.
 */
export function targetsBetween(
  from: string,
  to: string,
  routes: readonly RouteRow[],
  documentTypes?: readonly string[],
): string[] {
  const targets = routes
    .filter(
      (r) =>
        matches(r.from_party, from) &&
        matches(r.to_party, to) &&
        (documentTypes === undefined || typeMatches(r.document_type, documentTypes)),
    )
    .map((r) => r.target_plugin);
  return [...new Set(targets)].sort();
}
