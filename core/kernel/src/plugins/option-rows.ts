import { z } from 'zod';

/** One option of a plugin, as `longhaul plugins show` prints it. */
export interface OptionRow {
  /** Dotted path for options nested in objects (`limits.cpus`). */
  name: string;
  type: string;
  /** JSON of the default, or '' when there is none. */
  default: string;
  required: boolean;
  description: string;
}

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  required?: string[];
  default?: unknown;
  description?: string;
};

/**
 * The options a plugin's zod schema accepts, from its JSON Schema (input side, so defaults show):
 * objects are flattened into dotted names, one row per leaf.
 */
export function optionRows(schema: z.ZodType): OptionRow[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const rows: OptionRow[] = [];
  walk(json, '', rows);
  return rows;
}

function walk(schema: JsonSchema, prefix: string, rows: OptionRow[]): void {
  const required = new Set(schema.required ?? []);
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const name = prefix ? `${prefix}.${key}` : key;
    const object = objectOf(property);
    rows.push({
      name,
      type: typeName(property),
      default: property.default === undefined ? '' : JSON.stringify(property.default),
      required: required.has(key) && property.default === undefined,
      description: property.description ?? object?.description ?? '',
    });
    if (object?.properties) walk(object, name, rows);
  }
}

/** The object schema inside `schema` (directly or as the non-null branch of a union). */
function objectOf(schema: JsonSchema): JsonSchema | undefined {
  if (schema.properties) return schema;
  return (schema.anyOf ?? schema.oneOf)?.find((branch) => branch.properties);
}

function typeName(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return [...new Set(union.map(typeName))].join(' | ');
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'array') return `${schema.items ? typeName(schema.items) : 'any'}[]`;
  if (schema.type === 'object' && !schema.properties) {
    const values = schema.additionalProperties;
    return typeof values === 'object' ? `map of ${typeName(values)}` : 'object';
  }
  return schema.type ?? 'any';
}
