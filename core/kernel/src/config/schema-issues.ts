import type { z } from 'zod';
import type { KeyPath } from './yaml-file.js';

/** A schema problem at a key path, before it is located in a file. */
export interface PathIssue {
  path: (string | number)[];
  message: string;
  /** Names valid at that place, for a suggestion. */
  known?: string[];
  /** A likely fix, when the checker knows it better than the key names do. */
  suggestion?: string;
}

type Issue = z.core.$ZodIssue;

/**
 * Every problem `schema` finds in `value`: zod's issues made readable (a union reports the
 * problems of the branch the value was meant for, not "Invalid input"), plus keys the schema does
 * not know. Objects that would silently strip unknown keys count them as errors too: a misspelt
 * option must not be dropped without a word.
 */
export function schemaIssues(schema: z.ZodType, value: unknown): { issues: PathIssue[]; data?: unknown } {
  const result = schema.safeParse(value);
  const unknown = unknownKeys(schema, value, []);
  const issues: PathIssue[] = [...unknown];
  const seen = new Set(unknown.map((issue) => issue.path.join('\u0000')));
  if (!result.success) {
    for (const issue of result.error.issues.flatMap((raw) => flatten(raw, []))) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const path = [...issue.path.map(asKey), key];
          if (!seen.has(path.join('\u0000'))) issues.push({ path, message: `unknown key '${key}'` });
        }
        continue;
      }
      const path = issue.path.map(asKey);
      issues.push({ path, message: describe(issue, value, path) });
    }
  }
  return issues.length === 0 && result.success ? { issues, data: result.data } : { issues };
}

function asKey(part: PropertyKey): string | number {
  return typeof part === 'number' ? part : String(part);
}

function flatten(issue: Issue, base: PropertyKey[]): Issue[] {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union') return [{ ...issue, path }];
  // The branch the value was meant for is the one whose complaints are not about the value's type.
  const branch = issue.errors.find(
    (errors) =>
      errors.length > 0 && !errors.some((error) => error.path.length === 0 && isTypeMismatch(error)),
  );
  if (!branch) return [{ ...issue, path }];
  return branch.flatMap((inner) => flatten(inner, path));
}

function isTypeMismatch(issue: Issue): boolean {
  if (issue.code === 'invalid_type') return true;
  if (issue.code !== 'invalid_union') return false;
  return issue.errors.every((errors) =>
    errors.some((error) => error.path.length === 0 && isTypeMismatch(error)),
  );
}

function describe(issue: Issue, root: unknown, path: KeyPath): string {
  if (
    (issue.code === 'invalid_type' || issue.code === 'invalid_union') &&
    valueAt(root, path) === undefined
  ) {
    const expected = issue.code === 'invalid_type' ? ` (${issue.expected})` : '';
    return `missing required key '${path[path.length - 1] ?? ''}'${expected}`;
  }
  if (issue.code === 'invalid_type') {
    const expected = issue.expected === 'int' ? 'integer' : issue.expected;
    return `expected ${expected}, got ${typeName(valueAt(root, path))}`;
  }
  return issue.message;
}

export function valueAt(root: unknown, path: KeyPath): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[part];
  }
  return node;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `string '${value}'`;
  return `${typeof value} ${String(value)}`;
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: { _zod: { def: Def } };
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  items?: z.ZodType[];
  getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType | undefined): Def | undefined {
  return (schema as unknown as { _zod?: { def: Def } } | undefined)?._zod?.def;
}

const wrappers = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema under optional/default/pipe/lazy and similar wrappers, which do not change a value's shape. */
function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  for (let def = defOf(current); def; def = defOf(current)) {
    if (wrappers.has(def.type)) current = def.innerType;
    else if (def.type === 'pipe') current = def.in;
    else if (def.type === 'lazy') current = def.getter?.();
    else break;
  }
  return current;
}

/** Keys in `value` that the object schemas of `schema` neither declare nor explicitly allow. */
function unknownKeys(schema: z.ZodType | undefined, value: unknown, path: (string | number)[]): PathIssue[] {
  const def = defOf(unwrap(schema));
  if (!def || value === null || typeof value !== 'object') return [];
  switch (def.type) {
    case 'union': {
      const shaped = (def.options ?? []).filter((option) => acceptsShape(option, value));
      // Report for the closest branch only: the one with the fewest unknown keys.
      const candidates = shaped.map((option) => unknownKeys(option, value, path));
      return candidates.sort((a, b) => a.length - b.length)[0] ?? [];
    }
    case 'array':
      return Array.isArray(value)
        ? value.flatMap((item, index) => unknownKeys(def.element, item, [...path, index]))
        : [];
    case 'tuple':
      return Array.isArray(value)
        ? value.flatMap((item, index) => unknownKeys(def.items?.[index], item, [...path, index]))
        : [];
    case 'record':
      return Array.isArray(value)
        ? []
        : Object.entries(value).flatMap(([key, item]) => unknownKeys(def.valueType, item, [...path, key]));
    case 'object': {
      if (Array.isArray(value)) return [];
      const shape = def.shape ?? {};
      const known = Object.keys(shape);
      const catchall = def.catchall?._zod.def.type;
      const strict = catchall === undefined || catchall === 'never';
      return Object.entries(value).flatMap(([key, item]) => {
        if (key in shape) return unknownKeys(shape[key], item, [...path, key]);
        return strict ? [{ path: [...path, key], message: `unknown key '${key}'`, known }] : [];
      });
    }
    default:
      return [];
  }
}

/** Whether `schema` is (after unwrapping) a list when `value` is one, a mapping when it is one. */
function acceptsShape(schema: z.ZodType | undefined, value: unknown): boolean {
  const def = defOf(unwrap(schema));
  if (!def) return false;
  switch (def.type) {
    case 'union':
      return (def.options ?? []).some((option) => acceptsShape(option, value));
    case 'array':
    case 'tuple':
      return Array.isArray(value);
    case 'object':
    case 'record':
      return !Array.isArray(value);
    default:
      return false;
  }
}
