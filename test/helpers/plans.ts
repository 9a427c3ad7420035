/** Reading PostgreSQL's `explain (format json)`: a plan's nodes, for tests of how statements reach their rows. */

/** A node of a JSON plan, with the fields the plan tests look at. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** What `explain (format json) …` answers, as one row. */
export type ExplainRow = { 'QUERY PLAN': { Plan: PlanNode }[] };

/** Every node of the plan in that row, the top first. */
export function planNodes(row: ExplainRow): PlanNode[] {
  const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
  return nodesOf(row['QUERY PLAN'][0]!.Plan);
}
