import { readFile, stat } from 'node:fs/promises';
import {
  type Document,
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  visit,
} from 'yaml';
import { fsReason } from '../text/fs-reason.js';
import { ConfigError, type ConfigIssue, isConfigError } from './config-error.js';

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
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      // The parser reports running out of stack once per level it unwinds: one line says it.
      doc.errors
        .filter((error, index) => error.code !== 'RESOURCE_EXHAUSTION' || index === 0)
        .map((error) => {
          const pos = lineCounter.linePos(error.pos[0]);
          const message =
            error.code === 'RESOURCE_EXHAUSTION'
              ? `nested too deeply to parse (${error.message.split('\n')[0]})`
              : error.message.split('\n')[0];
          return { file, line: pos.line, column: pos.col, message: `invalid YAML: ${message}` };
        }),
    );
  }
  const at = (offset: number | undefined) => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { file, line: pos.line, column: pos.col };
  };
  let structural: ReturnType<typeof structuralIssues>;
  try {
    structural = structuralIssues(doc);
  } catch (error) {
    // visit() recurses: a document nested thousands deep overflows the stack.
    if (!(error instanceof RangeError)) throw error;
    structural = [{ message: `nested deeper than ${maxYamlDepth} levels`, offset: 0 }];
  }
  if (structural.length > 0) {
    throw new ConfigError(
      structural.map(({ message, offset }) => ({ ...at(offset), message: `invalid YAML: ${message}` })),
    );
  }
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (error) {
    // The yaml library refuses alias chains that expand without bound ("billion laughs").
    throw new ConfigError([
      { ...at(0), message: `invalid YAML: ${(error as Error).message}; write the values out instead` },
    ]);
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
    value,
    locate,
    issue(path, message, suggestion) {
      // An empty document has no node to point at: its problems sit at its start.
      const pos = locate(path) ?? { line: 1, column: 1 };
      return { file, ...pos, key: formatKeyPath(path) || undefined, message, suggestion };
    },
  };
}

/**
 * YAML files larger than this are refused before they are read: parsing takes many times a
 * file's size in memory, and no experiment, task or case file needs megabytes.
 */
export const maxYamlBytes = 4 * 1024 * 1024;

/** Reads and parses `file`; issues name it `name` (default: `file` as given). */
export async function readYaml(file: string, name = file, maxBytes = maxYamlBytes): Promise<YamlFile> {
  return parseYaml(await readYamlText(file, name, maxBytes), name);
}

/**
 * The text of a YAML file, refusing a directory, anything but a regular file and a file above
 * `maxBytes` (a ConfigError naming it `name`).
 */
export async function readYamlText(file: string, name = file, maxBytes = maxYamlBytes): Promise<string> {
  const refuse = (message: string) => new ConfigError([{ file: name, message }]);
  let text: string;
  try {
    // stat first: a directory, a FIFO or a huge file is refused without reading (a FIFO would block).
    const info = await stat(file);
    if (info.isDirectory()) throw refuse('is a directory; give the path of a YAML file');
    if (!info.isFile()) throw refuse('is not a regular file; give the path of a YAML file');
    if (info.size > maxBytes) {
      throw refuse(
        `is ${megabytes(info.size)}, above the ${megabytes(maxBytes)} limit for a YAML file; split it or move large data into files it names`,
      );
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isConfigError(error)) throw error;
    throw refuse(`cannot read file: ${fsReason(error)}`);
  }
  return text;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Deeper than this, a file is refused: every reader of the value recurses, and no input needs it. */
export const maxYamlDepth = 64;

/**
 * What the yaml library accepts but its readers cannot: keys repeated in one mapping (the
 * library's own `uniqueKeys` check compares every key with every other, minutes for a file with
 * 50,000 keys; a set per mapping takes one pass), an alias with no anchor before it (a
 * ReferenceError in `toJS`), an alias inside its own anchor (a value that contains itself), and
 * nesting deeper than `maxYamlDepth`.
 */
function structuralIssues(doc: Document): { message: string; offset: number | undefined }[] {
  const found: { message: string; offset: number | undefined }[] = [];
  const anchors = new Set<string>();
  let tooDeep = false;
  visit(doc, {
    Node(_key, node, path) {
      const offset = node.range?.[0];
      if (!tooDeep && path.length > maxYamlDepth && path.filter(isCollection).length > maxYamlDepth) {
        tooDeep = true;
        found.push({ message: `nested deeper than ${maxYamlDepth} levels`, offset });
      }
      if (isAlias(node)) {
        const { source } = node;
        if (!anchors.has(source)) {
          found.push({
            message: `the alias '*${source}' names no anchor '&${source}' set before it; define the anchor first or write the value out`,
            offset,
          });
        } else if (path.some((parent) => 'anchor' in parent && parent.anchor === source)) {
          found.push({
            message: `the alias '*${source}' sits inside its own anchor, so the value would contain itself`,
            offset,
          });
        }
        return;
      }
      if (node.anchor) anchors.add(node.anchor);
      if (isMap(node)) {
        const seen = new Set<unknown>();
        for (const pair of node.items) {
          const key = isScalar(pair.key) ? pair.key.value : pair.key;
          if (seen.has(key)) {
            found.push({
              message: `the key '${String(key)}' appears twice in one mapping; keys must be unique`,
              offset: (pair.key as Node | null)?.range?.[0],
            });
          }
          seen.add(key);
        }
      }
    },
  });
  return found;
}
