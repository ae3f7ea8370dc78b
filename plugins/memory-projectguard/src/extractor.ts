import { z } from 'zod';
import { type RecordType, recordTypes, type SemanticStore, sameTitle } from './records.js';

export const extractionSchema = z.object({
  records: z
    .array(
      z.object({
        op: z
          .enum(['add', 'update', 'supersede'])
          .describe('add a new fact, update a record, or replace one'),
        id: z.string().optional().describe('The record to update or supersede'),
        type: z.enum(recordTypes),
        title: z.string(),
        body: z.string().describe('The committed fact: statement, formula, interface or constraint'),
        status: z.enum(['active', 'deferred', 'open']).optional(),
        codeRefs: z.array(z.string()).optional().describe('Files or symbols implementing it'),
      }),
    )
    .describe('Only facts the user committed to or accepted; never unconfirmed proposals'),
  edges: z
    .array(
      z.object({
        from: z.string(),
        relation: z.enum(['operationalizes', 'motivates', 'refines', 'depends_on', 'supersedes']),
        to: z.string(),
      }),
    )
    .describe('Relations between record ids (new records may be named by their title)'),
});
export type Extraction = z.output<typeof extractionSchema>;

export const extractorSystemPrompt = `You maintain the semantic state of a software project: design records (long-lived structure and constraints), decision records (specific implementation choices, interface conventions) and resource records (observations, deferred questions).

After each coding turn you are shown the user's latest request, the agent's reply, the files the turn changed and the current records. Return the changes to the records.

Be conservative. Record only what the user asked for or accepted and what the code now does; never record an assistant proposal the user did not confirm, and drop alternatives the user rejected. Prefer updating an existing record (give its id) over adding a new one; when the user changes an earlier choice, supersede the old record. Return empty lists when nothing was committed.`;

export function extractorPrompt(
  turn: number,
  request: string,
  reply: string,
  changed: string[],
  store: SemanticStore,
): string {
  const records = store.records
    .filter((record) => record.status !== 'superseded')
    .map((record) => `- ${record.id} [${record.type}] ${record.title}: ${record.body}`)
    .join('\n');
  return [
    `Latest request (turn ${turn + 1}):`,
    request,
    '',
    "Agent's reply:",
    reply || '(none)',
    '',
    `Files changed: ${changed.join(', ') || 'none'}`,
    '',
    'Current records:',
    records || '(none)',
  ].join('\n');
}

/**
 * Merges an extraction into the store: an update (or an add whose title matches a record of the
 * same type) edits the record; a supersede marks the old one and links the new one to it.
 */
export function mergeExtraction(
  store: SemanticStore,
  extraction: Extraction,
  turn: number,
  source: string,
): string[] {
  const changed: string[] = [];
  const byTitle = new Map<string, string>();
  for (const item of extraction.records) {
    const type = item.type as RecordType;
    const existing = item.id ? store.get(item.id) : undefined;
    const target = item.op === 'supersede' ? undefined : (existing ?? store.findSimilar(type, item.title));
    if (target) {
      Object.assign(target, {
        title: item.title,
        body: item.body,
        status: item.status ?? target.status,
        updatedTurn: turn,
        sources: [...new Set([...target.sources, source])],
        codeRefs: [...new Set([...target.codeRefs, ...(item.codeRefs ?? [])])],
      });
      byTitle.set(item.title, target.id);
      changed.push(target.id);
      continue;
    }
    const id = store.nextId(type);
    store.records.push({
      id,
      type,
      title: item.title,
      status: item.status ?? 'active',
      createdTurn: turn,
      updatedTurn: turn,
      sources: [source],
      codeRefs: item.codeRefs ?? [],
      body: item.body,
    });
    byTitle.set(item.title, id);
    changed.push(id);
    if (item.op === 'supersede' && existing) {
      existing.status = 'superseded';
      existing.updatedTurn = turn;
      store.addEdge({ from: id, relation: 'supersedes', to: existing.id, turn });
    }
  }
  // Edges may name records by id or by title, this turn's or earlier ones.
  const resolve = (name: string) =>
    byTitle.get(name) ??
    store.get(name)?.id ??
    store.records.find((record) => sameTitle(record.title, name))?.id ??
    name;
  for (const edge of extraction.edges)
    store.addEdge({ from: resolve(edge.from), relation: edge.relation, to: resolve(edge.to), turn });
  return changed;
}
