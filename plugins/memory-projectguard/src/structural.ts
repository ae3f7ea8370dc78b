import { createHash } from 'node:crypto';
import { parse, type SgNode } from '@ast-grep/napi';
import { languageOfPath, registerGrammars } from '@longhaul/metrics';

export interface FileSkeleton {
  language: string;
  sha256: string;
  imports: string[];
  classes: { name: string; bases: string; methods: string[] }[];
  functions: string[];
  /** Names other modules can use: top-level public definitions (Python) or exports (TS/JS). */
  publicSymbols: string[];
}

export type Skeleton = Record<string, FileSkeleton>;

export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function pythonSkeleton(root: SgNode, skeleton: FileSkeleton): void {
  for (let node of root.children()) {
    if (node.kind() === 'decorated_definition') node = node.field('definition') ?? node;
    const kind = node.kind();
    if (kind === 'import_statement' || kind === 'import_from_statement')
      skeleton.imports.push(oneLine(node.text()));
    const name = node.field('name')?.text();
    if (!name) continue;
    if (kind === 'function_definition') {
      skeleton.functions.push(`${name}${oneLine(node.field('parameters')?.text() ?? '()')}`);
      if (!name.startsWith('_')) skeleton.publicSymbols.push(name);
    } else if (kind === 'class_definition') {
      const methods = (node.field('body')?.children() ?? [])
        .map((child) =>
          child.kind() === 'decorated_definition' ? (child.field('definition') ?? child) : child,
        )
        .filter((child) => child.kind() === 'function_definition')
        .map(
          (child) => `${child.field('name')?.text()}${oneLine(child.field('parameters')?.text() ?? '()')}`,
        );
      skeleton.classes.push({ name, bases: oneLine(node.field('superclasses')?.text() ?? ''), methods });
      if (!name.startsWith('_')) skeleton.publicSymbols.push(name);
    }
  }
}

function scriptSkeleton(root: SgNode, skeleton: FileSkeleton): void {
  for (const top of root.children()) {
    if (top.kind() === 'import_statement') skeleton.imports.push(oneLine(top.text()));
    const exported = top.kind() === 'export_statement';
    const node = exported ? (top.field('declaration') ?? top) : top;
    const name = node.field('name')?.text();
    if (node.kind() === 'function_declaration' && name)
      skeleton.functions.push(`${name}${oneLine(node.field('parameters')?.text() ?? '()')}`);
    if (node.kind() === 'class_declaration' && name) {
      const methods = (node.field('body')?.children() ?? [])
        .filter((child) => child.kind() === 'method_definition')
        .map(
          (child) => `${child.field('name')?.text()}${oneLine(child.field('parameters')?.text() ?? '()')}`,
        );
      skeleton.classes.push({ name, bases: '', methods });
    }
    if (exported) {
      if (name) skeleton.publicSymbols.push(name);
      else
        for (const declarator of node.findAll({ rule: { kind: 'variable_declarator' } }))
          skeleton.publicSymbols.push(declarator.field('name')?.text() ?? '');
    }
  }
}

/** The skeleton of one source file, or undefined for files of no known language or unparsable ones. */
export function skeletonOf(path: string, text: string): FileSkeleton | undefined {
  const spec = languageOfPath(path);
  if (
    !spec ||
    (spec.id !== 'python' && spec.id !== 'typescript' && spec.id !== 'tsx' && spec.id !== 'javascript')
  )
    return undefined;
  registerGrammars();
  const skeleton: FileSkeleton = {
    language: spec.id,
    sha256: sha256(text),
    imports: [],
    classes: [],
    functions: [],
    publicSymbols: [],
  };
  try {
    const root = parse(spec.lang, text).root();
    if (spec.id === 'python') pythonSkeleton(root, skeleton);
    else scriptSkeleton(root, skeleton);
  } catch {
    return undefined;
  }
  return skeleton;
}

export interface FileChanges {
  added: string[];
  modified: string[];
  deleted: string[];
}

/** Added, modified and deleted paths between two path → sha256 manifests. */
export function changesBetween(before: Record<string, string>, after: Record<string, string>): FileChanges {
  const changes: FileChanges = { added: [], modified: [], deleted: [] };
  for (const [path, hash] of Object.entries(after)) {
    if (!(path in before)) changes.added.push(path);
    else if (before[path] !== hash) changes.modified.push(path);
  }
  for (const path of Object.keys(before)) if (!(path in after)) changes.deleted.push(path);
  return changes;
}

export function renderSkeleton(skeleton: Skeleton, only?: ReadonlySet<string>): string {
  const lines: string[] = [];
  for (const [path, file] of Object.entries(skeleton).sort(([a], [b]) => a.localeCompare(b))) {
    if (only && !only.has(path)) continue;
    lines.push(`- ${path}`);
    for (const cls of file.classes)
      lines.push(
        `  - class ${cls.name}${cls.bases}${cls.methods.length ? `: ${cls.methods.join(', ')}` : ''}`,
      );
    for (const fn of file.functions) lines.push(`  - def ${fn}`);
  }
  return lines.join('\n');
}
