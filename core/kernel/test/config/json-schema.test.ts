import { experimentJsonSchema, PluginRegistry } from '@longhaul/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experiments, makeProject } from '../fixtures/config/project.js';

let registry: PluginRegistry;
let remove: () => Promise<void>;
beforeAll(async () => {
  const project = await makeProject();
  remove = project.remove;
  registry = await PluginRegistry.discover({
    cwd: project.dir,
    baseDir: experiments,
    extra: ['../plugins/basics', '../plugins/harnesses', '../plugins/source-list'],
  });
});
afterAll(() => remove());

// biome-ignore lint/suspicious/noExplicitAny: the tests walk untyped JSON
type Schema = Record<string, any>;

describe('experimentJsonSchema', () => {
  it('describes the kernel keys, closed to unknown keys', () => {
    const schema = experimentJsonSchema(registry) as Schema;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['name', 'source', 'tasks', 'harness', 'script', 'memory', 'repeats', 'limits']),
    );
    expect(schema.required).toEqual(['source', 'harness']);
    expect(schema.properties.limits.properties.turnSeconds).toMatchObject({ type: 'number', default: 1800 });
  });

  it('lets a ref be an id or a list, offering the installed ids with their descriptions', () => {
    const schema = experimentJsonSchema(registry) as Schema;
    expect(schema.properties.harness.anyOf).toEqual([
      { $ref: '#/$defs/harnessRef' },
      { type: 'array', items: { $ref: '#/$defs/harnessRef' }, minItems: 1 },
    ]);
    expect(schema.properties.script.default).toBe('checkpoints');
    const ref = schema.$defs.harnessRef;
    expect(ref.anyOf[0].anyOf).toEqual([
      { const: 'agent', description: 'A configurable agent' },
      { const: 'echo', description: 'Repeats the prompt back' },
    ]);
  });

  it("checks a ref's options against the chosen plugin's schema", () => {
    const ref = (experimentJsonSchema(registry) as Schema).$defs.harnessRef.anyOf[1];
    expect(ref.additionalProperties).toBe(false);
    const agent = ref.allOf.find((rule: Schema) => rule.if.properties.id.const === 'agent');
    expect(agent.then.properties.options).toMatchObject({
      type: 'object',
      required: ['model'],
      properties: {
        model: { type: 'string', description: 'Model name' },
        effort: { enum: ['low', 'medium', 'high'], default: 'medium' },
      },
    });
  });

  it('is plain JSON', () => {
    const schema = experimentJsonSchema(registry);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});
