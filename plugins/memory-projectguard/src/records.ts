import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

export const recordTypes = ['design', 'decision', 'resource'] as const;
export type RecordType = (typeof recordTypes)[number];
const prefixes: Record<RecordType, string> = { design: 'DSN', decision: 'DEC', resource: 'RES' };

export interface SemanticRecord {
  id: string;
  type: RecordType;
  title: string;
  status: 'active' | 'superseded' | 'deferred' | 'open';
  createdTurn: number;
  updatedTurn: number;
  /** Where the fact comes from: `user:<turn>` or `progress:<turn>`. */
  sources: string[];
  /** Files or symbols that implement it. */
  codeRefs: string[];
  body: string;
}

export interface Edge {
  from: string;
  relation: string;
  to: string;
  turn: number;
}

/**
 * The semantic state: one markdown file per record (YAML front matter, statement as the body)
 * under `<dir>/<type>/`, relations in `<dir>/edges.tsv`. Diffable and renderable as it is.
 */
export class SemanticStore {
  records: SemanticRecord[] = [];
  edges: Edge[] = [];

  constructor(readonly dir: string) {}

  static async open(dir: string): Promise<SemanticStore> {
    const store = new SemanticStore(dir);
    for (const type of recordTypes) {
      const files = await readdir(join(dir, type)).catch(() => [] as string[]);
      for (const file of files.filter((name) => name.endsWith('.md')).sort())
        store.records.push(parseRecord(await readFile(join(dir, type, file), 'utf8')));
    }
    const edges = await readFile(join(dir, 'edges.tsv'), 'utf8').catch(() => '');
    for (const line of edges.split('\n').slice(1)) {
      const [from, relation, to, turn] = line.split('\t');
      if (from && relation && to) store.edges.push({ from, relation, to, turn: Number(turn) });
    }
    return store;
  }

  get(id: string): SemanticRecord | undefined {
    return this.records.find((record) => record.id === id);
  }

  /** A record of the same type whose title says the same thing, to edit instead of adding. */
  findSimilar(type: RecordType, title: string): SemanticRecord | undefined {
    const key = normalize(title);
    return this.records.find((record) => record.type === type && normalize(record.title) === key);
  }

  nextId(type: RecordType): string {
    const numbers = this.records
      .filter((record) => record.type === type)
      .map((record) => Number(record.id.split('-')[1]) || 0);
    return `${prefixes[type]}-${String(Math.max(0, ...numbers) + 1).padStart(4, '0')}`;
  }

  addEdge(edge: Edge): void {
    if (!this.get(edge.from) || !this.get(edge.to)) return;
    if (this.edges.some((e) => e.from === edge.from && e.relation === edge.relation && e.to === edge.to))
      return;
    this.edges.push(edge);
  }

  async save(): Promise<void> {
    for (const type of recordTypes) {
      await rm(join(this.dir, type), { recursive: true, force: true });
      await mkdir(join(this.dir, type), { recursive: true });
    }
    for (const record of this.records)
      await writeFile(
        join(this.dir, record.type, `${record.id}-${slug(record.title)}.md`),
        renderRecord(record),
      );
    const rows = this.edges.map((edge) => [edge.from, edge.relation, edge.to, String(edge.turn)].join('\t'));
    await writeFile(join(this.dir, 'edges.tsv'), `${['from\trelation\tto\tturn', ...rows].join('\n')}\n`);
  }
}

export function sameTitle(a: string, b: string): boolean {
  return normalize(a) === normalize(b);
}

function normalize(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

function slug(title: string): string {
  return normalize(title).replace(/ /g, '-').slice(0, 48) || 'record';
}

function renderRecord(record: SemanticRecord): string {
  const { body, ...meta } = record;
  return `---\n${stringify(meta).trimEnd()}\n---\n${body.trim()}\n`;
}

function parseRecord(text: string): SemanticRecord {
  const match = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(text);
  if (!match) throw new Error('a ProjectGuard record without front matter');
  return { ...(parse(match[1]!) as Omit<SemanticRecord, 'body'>), body: match[2]!.trim() };
}
