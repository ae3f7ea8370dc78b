import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ClassifiedError } from '@longhaul/core';
import { toolNames } from './names.js';
import type { IdeTool } from './tool.js';

function isTool(value: unknown): value is IdeTool {
  const tool = value as Partial<IdeTool> | null;
  return (
    typeof tool?.name === 'string' &&
    /^[A-Za-z0-9_-]{1,64}$/.test(tool.name) &&
    typeof tool.description === 'string' &&
    typeof tool.run === 'function' &&
    typeof (tool.input as { extend?: unknown } | undefined)?.extend === 'function'
  );
}

/**
 * Loads the experiment's extra tools: modules (paths relative to the experiment, or package
 * names) whose default export is a tool or an array of tools in the harness's own shape
 * `{name, description, input: zod object, run(input, ctx)}`, so they act through the sandbox too.
 */
export async function loadExtraTools(specs: readonly string[], baseDir: string): Promise<IdeTool[]> {
  const tools: IdeTool[] = [];
  for (const spec of specs) {
    const local = spec.startsWith('.') || isAbsolute(spec);
    const target = local ? pathToFileURL(resolve(baseDir, spec)).href : spec;
    let loaded: { default?: unknown };
    try {
      loaded = (await import(target)) as { default?: unknown };
    } catch (error) {
      throw new ClassifiedError(
        'harness',
        `harness 'ide': extra tools ${spec} cannot be loaded: ${(error as Error).message}`,
      );
    }
    const exported = Array.isArray(loaded.default) ? loaded.default : [loaded.default];
    for (const [i, tool] of exported.entries()) {
      if (!isTool(tool))
        throw new ClassifiedError(
          'harness',
          `harness 'ide': extra tools ${spec}: export ${i} is not a tool ({name, description, input: zod object, run(input, ctx)})`,
        );
      const taken = [...toolNames, ...tools.map((t) => t.name)];
      if (taken.includes(tool.name as (typeof toolNames)[number]))
        throw new ClassifiedError(
          'harness',
          `harness 'ide': extra tools ${spec}: the name ${tool.name} is already taken`,
        );
      tools.push(tool);
    }
  }
  return tools;
}
