import { extname } from 'node:path';
import pythonGrammar from '@ast-grep/lang-python';
import { Lang, parse, registerDynamicLanguage } from '@ast-grep/napi';

/** A function or class as the request's definition blocks describe it. */
export interface Definition {
  file: string;
  kind: 'function' | 'class';
  /** Dotted through the enclosing classes and functions: `Ledger.balance`. */
  name: string;
  /** The header line(s) up to the body: `def balance(self, account):`. */
  declaration: string;
  docstring?: string;
}

/** Definitions a patch adds, modifies or deletes. */
export interface DefinitionChanges {
  added: Definition[];
  modified: Definition[];
  deleted: Definition[];
}

interface Node {
  kind(): string;
  text(): string;
  children(): Node[];
  field(name: string): Node | null;
  prev(): Node | null;
  parent(): Node | null;
  range(): { start: { index: number }; end: { index: number } };
}

export interface Found extends Definition {
  /** The definition's text without nested definitions, whitespace collapsed: what "modified" compares. */
  own: string;
}

let registered = false;

function languageOf(path: string): string | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.py') {
    if (!registered) {
      registerDynamicLanguage({ python: pythonGrammar });
      registered = true;
    }
    return 'python';
  }
  if (['.ts', '.mts', '.cts'].includes(ext)) return Lang.TypeScript;
  if (ext === '.tsx') return Lang.Tsx;
  if (['.js', '.mjs', '.cjs', '.jsx'].includes(ext)) return Lang.JavaScript;
  return undefined;
}

/** Whether definitions can be read from files like `path`. */
export function definitionsSupported(path: string): boolean {
  return languageOf(path) !== undefined;
}

const pythonKinds: Record<string, 'function' | 'class'> = {
  function_definition: 'function',
  class_definition: 'class',
};

const scriptKinds: Record<string, 'function' | 'class'> = {
  function_declaration: 'function',
  generator_function_declaration: 'function',
  method_definition: 'function',
  class_declaration: 'class',
  abstract_class_declaration: 'class',
};

/** Python's inspect.cleandoc: strip the quotes, dedent all lines but the first, trim blank ends. */
function cleanPythonString(literal: string): string {
  const body = literal.replace(/^[rRuUbBfF]*("""|'''|"|')/, '').replace(/("""|'''|"|')$/, '');
  const lines = body.split('\n');
  const rest = lines.slice(1).filter((line) => line.trim() !== '');
  const indent = Math.min(...rest.map((line) => line.length - line.trimStart().length));
  const dedented = [
    lines[0]!.trim(),
    ...lines.slice(1).map((line) => (Number.isFinite(indent) ? line.slice(indent) : line).trimEnd()),
  ];
  return dedented.join('\n').trim();
}

function cleanJsDoc(comment: string): string | undefined {
  if (!comment.startsWith('/**')) return undefined;
  return comment
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd())
    .join('\n')
    .trim();
}

function pythonDocstring(body: Node | null): string | undefined {
  const first = body?.children()[0];
  if (first?.kind() !== 'expression_statement') return undefined;
  const string = first.children()[0];
  return string?.kind() === 'string' ? cleanPythonString(string.text()) : undefined;
}

function scriptDocstring(node: Node): string | undefined {
  const parent = node.parent();
  const anchor = parent?.kind() === 'export_statement' ? parent : node;
  const comment = anchor.prev();
  return comment?.kind() === 'comment' ? cleanJsDoc(comment.text()) : undefined;
}

/** The header of a definition: its text up to the body (ast-grep ranges are UTF-8 byte offsets). */
function declarationOf(node: Node, body: Node | null, bytes: Buffer): string {
  const start = node.range().start.index;
  const end = body ? body.range().start.index : node.range().end.index;
  const lines = bytes.subarray(start, end).toString('utf8').trimEnd().split('\n');
  // Comments between the header and the first statement belong to the body, not the declaration.
  while (lines.length > 1 && /^\s*(#|\/\/)/.test(lines[lines.length - 1]!)) lines.pop();
  return lines
    .join('\n')
    .trim()
    .replace(/\s*\{$/, '');
}

/** Every function and class in one file, keyed by qualified name. */
export function definitionsIn(path: string, source: string): Map<string, Found> {
  const language = languageOf(path);
  const found = new Map<string, Found>();
  if (!language) return found;
  const python = language === 'python';
  const kinds = python ? pythonKinds : scriptKinds;
  const root = parse(language as Lang, source).root() as unknown as Node;
  const bytes = Buffer.from(source, 'utf8');
  const texts = new Map<string, string>();

  const visit = (node: Node, scope: string[]): string[] => {
    const kind = kinds[node.kind()];
    if (!kind) {
      const nested: string[] = [];
      for (const child of node.children()) nested.push(...visit(child, scope));
      return nested;
    }
    const name = node.field('name')?.text() ?? '<anonymous>';
    const qualified = [...scope, name].join('.');
    const body = node.field('body');
    const inner: string[] = [];
    for (const child of body?.children() ?? []) inner.push(...visit(child, [...scope, name]));
    let own = node.text();
    for (const nested of inner) own = own.replace(texts.get(nested) ?? '', '');
    own = own.replace(/\s+/g, ' ');
    // A decorated definition leaves with its decorators when its enclosing definition's own text is taken.
    const parent = node.parent();
    texts.set(qualified, (parent?.kind() === 'decorated_definition' ? parent : node).text());
    found.set(qualified, {
      file: path,
      kind,
      name: qualified,
      declaration: declarationOf(node, body, bytes),
      docstring: python ? pythonDocstring(body) : scriptDocstring(node),
      own,
    });
    return [qualified];
  };
  visit(root, []);
  return found;
}

function strip(found: Found): Definition {
  const definition: Definition = {
    file: found.file,
    kind: found.kind,
    name: found.name,
    declaration: found.declaration,
  };
  if (found.docstring) definition.docstring = found.docstring;
  return definition;
}

/**
 * What changed between two versions of one file: definitions only in `after` are added, only in
 * `before` deleted, and in both with different text modified. A class counts as modified when
 * its own text changed (its header, docstring, attributes), not when one of its methods was
 * added, changed or removed: that method is listed instead.
 */
export function diffDefinitions(
  path: string,
  before: string | undefined,
  after: string | undefined,
): DefinitionChanges {
  return compareDefinitions(
    before === undefined ? new Map() : definitionsIn(path, before),
    after === undefined ? new Map() : definitionsIn(path, after),
  );
}

/** What changed between the definitions of two versions of one file (see diffDefinitions). */
export function compareDefinitions(old: Map<string, Found>, now: Map<string, Found>): DefinitionChanges {
  const changes: DefinitionChanges = { added: [], modified: [], deleted: [] };
  for (const [name, definition] of now) {
    const previous = old.get(name);
    if (!previous) changes.added.push(strip(definition));
    else if (previous.own !== definition.own) changes.modified.push(strip(definition));
  }
  for (const [name, definition] of old) if (!now.has(name)) changes.deleted.push(strip(definition));
  return changes;
}
