import { z } from 'zod';
import { markedKeys, markedValues } from './marked-options.js';

/** What the kernel knows of a model option. */
export interface ModelOptionMeta {
  /**
   * Prefixes (`anthropic` for `anthropic:<id>`) that name a provider called directly rather than a
   * model of the experiment's `models:`; such values are not checked against `models:`.
   */
  directPrefixes?: readonly string[];
}

/**
 * The options schemas `modelOption` made, so the kernel finds them in any plugin's schema. Kept on
 * globalThis: a plugin may load another copy of this module than the kernel's (its own install,
 * or built files where the kernel runs from sources), and both must see the same marks.
 */
const shared = globalThis as { [key: symbol]: WeakMap<object, ModelOptionMeta> | undefined };
const key = Symbol.for('longhaul.modelOptions');
shared[key] ??= new WeakMap();
export const modelOptions: WeakMap<object, ModelOptionMeta> = shared[key];

/**
 * The schema of a plugin option that names a model of the experiment's `models:` (a harness's
 * model, a judge, a memory's extractor). Declared this way, the option is checked when the
 * experiment is loaded: a name not under `models:` is refused at the option's line and column,
 * with a suggestion, instead of failing every trial with `error:model`. Add `.optional()` or
 * `.default(name)` after it as usual.
 */
export function modelOption(description: string, meta: ModelOptionMeta = {}) {
  const schema = z.string().min(1).describe(description);
  modelOptions.set(schema, meta);
  return schema;
}

/** A model named in a plugin's options, and where under the options it is. */
export interface ModelReference {
  path: (string | number)[];
  name: string;
  /** Whether the options leave it out (its value is the option's default). */
  defaulted: boolean;
}

/**
 * The model references in parsed plugin options (`data`, defaults filled), found through the
 * schema's `modelOption`s; `given` is the options as written, to tell a default from a value.
 */
export function modelReferences(schema: z.ZodType, data: unknown, given: unknown): ModelReference[] {
  return markedValues(schema, data, given, modelOptions).flatMap(({ path, value, meta, defaulted }) => {
    if (typeof value !== 'string') return [];
    const colon = value.indexOf(':');
    if (colon > 0 && meta.directPrefixes?.includes(value.slice(0, colon))) return [];
    return [{ path, name: value, defaulted }];
  });
}

/**
 * The keys of an options schema whose values are `modelOption`s (`model`, `agentModel`,
 * `extractor`): where `longhaul run --model` puts its model, whatever the plugin calls the option.
 * Only keys at the top of the options; a schema that is not an object has none.
 */
export function modelOptionKeys(schema: z.ZodType | undefined): string[] {
  return schema ? markedKeys(schema, modelOptions) : [];
}
