import { z } from 'zod';
import type { PluginKind } from '../contracts/plugin.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { experimentSchema, refFields } from './experiment-schema.js';

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of experiment files: the kernel's schema, with every plugin ref narrowed to
 * the discovered plugins of its kind and its `options` checked against the chosen plugin's schema
 * (an if/then per id), so editors can complete ids and options.
 */
export function experimentJsonSchema(
  registry: PluginRegistry,
  /** Schemas of the sections the kernel leaves to others: the gateway's `models:` and `prices:`. */
  sections: Partial<Record<'models' | 'prices', z.ZodType>> = {},
): JsonSchema {
  const schema = z.toJSONSchema(experimentSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const properties = schema.properties as Record<string, JsonSchema>;
  for (const [key, section] of Object.entries(sections)) {
    const { $schema: _, ...typed } = z.toJSONSchema(section, {
      io: 'input',
      unrepresentable: 'any',
    }) as JsonSchema;
    properties[key] = typed;
  }
  const defs: Record<string, JsonSchema> = {};
  for (const { field, kind, shape } of refFields) {
    const name = `${kind}Ref`;
    defs[name] = refSchema(registry, kind);
    const ref = { $ref: `#/$defs/${name}` };
    const list = { type: 'array', items: ref, ...(shape === 'axis' ? { minItems: 1 } : {}) };
    const { description, default: fallback } = properties[field] ?? {};
    properties[field] = {
      ...(description === undefined ? {} : { description }),
      ...(fallback === undefined ? {} : { default: fallback }),
      anyOf: shape === 'one' ? [ref] : [ref, list],
    };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'longhaul experiment',
    ...schema,
    $defs: { ...((schema.$defs as object) ?? {}), ...defs },
  };
}

function refSchema(registry: PluginRegistry, kind: PluginKind): JsonSchema {
  const plugins = registry.list(kind);
  const ids = plugins.map((plugin) => ({
    const: plugin.definition.id,
    description: plugin.definition.description,
  }));
  const idSchema = ids.length > 0 ? { anyOf: ids } : { type: 'string' };
  return {
    anyOf: [
      { ...idSchema, description: `A ${kind} plugin id` },
      {
        type: 'object',
        properties: {
          id: { ...idSchema, description: `The ${kind} plugin id` },
          options: { type: 'object', description: "The plugin's options" },
          label: {
            type: 'string',
            pattern: '^[A-Za-z0-9._#-]+$',
            description: 'How conditions and trial ids name this entry',
          },
        },
        required: ['id'],
        additionalProperties: false,
        allOf: plugins.map((plugin) => ({
          if: { properties: { id: { const: plugin.definition.id } }, required: ['id'] },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
          then: {
            properties: { options: optionsSchema(plugin.definition.options, plugin.definition.description) },
          },
        })),
      },
    ],
  };
}

function optionsSchema(options: z.ZodType, description: string): JsonSchema {
  try {
    const { $schema: _, ...schema } = z.toJSONSchema(options, {
      io: 'input',
      unrepresentable: 'any',
    }) as JsonSchema;
    return { description, ...schema };
  } catch {
    // A schema zod cannot express (a cycle without an id, say) still accepts a mapping.
    return { description, type: 'object' };
  }
}
