import type { z } from 'zod';
import type { PluginKind } from '../contracts/plugin.js';
import type { PluginRef } from '../contracts/trial.js';
import type { PluginRegistry } from '../plugins/registry.js';
import type { LocatedRef } from './plugin-refs.js';
import { valueAt } from './schema-issues.js';

/** A value of a plugin's options whose schema carries a mark, and where under the options it is. */
export interface MarkedValue<Meta> {
  path: (string | number)[];
  value: unknown;
  meta: Meta;
  /** Whether the options leave it out (its value is the option's default). */
  defaulted: boolean;
}

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
};

/**
 * The values in parsed plugin options (`data`, defaults filled) whose schema node is a key of
 * `marks` (the schemas `modelOption` or `scoreOption` made), through optional, default, object
 * and array nodes; `given` is the options as written, to tell a default from a value.
 */
export function markedValues<Meta>(
  schema: z.ZodType,
  data: unknown,
  given: unknown,
  marks: WeakMap<object, Meta>,
): MarkedValue<Meta>[] {
  const found: MarkedValue<Meta>[] = [];
  const visit = (node: z.ZodType, value: unknown, written: unknown, path: (string | number)[]): void => {
    const meta = marks.get(node);
    if (meta !== undefined) {
      found.push({ path, value, meta, defaulted: written === undefined });
      return;
    }
    const def = (node as unknown as { _zod: { def: Def } })._zod.def;
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (inner) visit(inner, value, written, path);
    else if (def.type === 'object' && def.shape && isMapping(value)) {
      for (const [key, child] of Object.entries(def.shape))
        visit(child, value[key], isMapping(written) ? written[key] : undefined, [...path, key]);
    } else if (def.type === 'array' && def.element && Array.isArray(value)) {
      for (const [index, item] of value.entries())
        visit(def.element, item, Array.isArray(written) ? written[index] : undefined, [...path, index]);
    }
  };
  visit(schema, data, given, []);
  return found;
}

/** `node` without the optional, default and pipe nodes around a marked schema (or an object). */
function unwrapped(schema: z.ZodType, marks: WeakMap<object, unknown>): z.ZodType {
  let node = schema;
  for (;;) {
    if (marks.has(node)) return node;
    const def = (node as unknown as { _zod: { def: Def } })._zod.def;
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) return node;
    node = inner;
  }
}

/** The top-level keys of an object options schema whose schema carries a mark of `marks`. */
export function markedKeys(schema: z.ZodType, marks: WeakMap<object, unknown>): string[] {
  const def = (unwrapped(schema, marks) as unknown as { _zod: { def: Def } })._zod.def;
  if (def.type !== 'object' || !def.shape) return [];
  return Object.entries(def.shape)
    .filter(([, child]) => marks.has(unwrapped(child, marks)))
    .map(([key]) => key);
}

/**
 * What `read` finds in the options of every plugin use of the experiment (`raw` as written, to
 * tell a default from a value), with the use and where it is written.
 */
export function inEveryUse<T>(
  located: { kind: PluginKind; refs: LocatedRef[] }[],
  registry: PluginRegistry,
  raw: Record<string, unknown>,
  read: (schema: z.ZodType, options: unknown, written: unknown) => T[],
): { kind: PluginKind; ref: PluginRef; path: (string | number)[]; found: T }[] {
  return located.flatMap(({ kind, refs }) =>
    refs.flatMap(({ ref, path }) => {
      const plugin = registry.get(kind, ref.id);
      if (!plugin) return [];
      const written = valueAt(raw, [...path, 'options']);
      return read(plugin.definition.options, ref.options, written).map((found) => ({
        kind,
        ref,
        path,
        found,
      }));
    }),
  );
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
