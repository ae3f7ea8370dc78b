import { readFile } from 'node:fs/promises';
import { type Document, isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { ConfigError, type ConfigIssue } from './config-error.js';

export type KeyPath = readonly (string | number)[];

/** A parsed YAML file that can say where any key path sits in it. */
export interface YamlFile {
  file: string;
  doc: Document;
  value: unknown;
  /** Line and column of the node at `path` (or of its closest existing parent). */
  locate(path: KeyPath): { line: number; column: number } | undefined;
  /** An issue located at `path`. */
  issue(path: KeyPath, message: string, suggestion?: string): ConfigIssue;
}

export function formatKeyPath(path: KeyPath): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part),
    '',
  );
}

export function parseYaml(text: string, file: string): YamlFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((error) => {
        const pos = lineCounter.linePos(error.pos[0]);
        return {
          file,
          line: pos.line,
          column: pos.col,
          message: `invalid YAML: ${error.message.split('\n')[0]}`,
        };
      }),
    );
  }
  const locate = (path: KeyPath) => {
    let node: unknown = doc.contents;
    let found: Node | undefined = doc.contents ?? undefined;
    for (const part of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => (item.key as { value?: unknown })?.value === part);
        if (!pair) break;
        // Point at the key of a pair: that is where a user looks for a misspelt or bad key.
        found = (pair.key as Node) ?? found;
        node = pair.value;
        if (pair.value && (isMap(pair.value) || isSeq(pair.value))) found = pair.key as Node;
      } else if (isSeq(node) && typeof part === 'number') {
        const item = node.items[part] as Node | undefined;
        if (!item) break;
        found = item;
        node = item;
      } else break;
    }
    if (!found?.range) return undefined;
    const pos = lineCounter.linePos(found.range[0]);
    return { line: pos.line, column: pos.col };
  };
  return {
    file,
    doc,
    value: doc.toJS(),
    locate,
    issue(path, message, suggestion) {
      const pos = locate(path);
      return { file, ...pos, key: formatKeyPath(path) || undefined, message, suggestion };
    },
  };
}

/** Reads and parses `file`; issues name it `name` (default: `file` as given). */
export async function readYaml(file: string, name = file): Promise<YamlFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([
      { file: name, message: `cannot read file: ${(error as NodeJS.ErrnoException).code ?? error}` },
    ]);
  }
  return parseYaml(text, name);
}
