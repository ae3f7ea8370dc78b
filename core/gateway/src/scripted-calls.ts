import { isAbsolute, relative, resolve } from 'node:path';
import {
  type ConfigIssue,
  closest,
  type HarnessModelUse,
  isConfigError,
  type PathIssue,
  readYaml,
} from '@longhaul/core';
import { z } from 'zod';
import {
  type ModelConfig,
  modelsConfigSchema,
  type ScriptedReplyConfig,
  scriptedReplySchema,
} from './config.js';

/** Where a scripted model's replies are written: the experiment (key paths) or a replies file. */
interface Replies {
  replies: readonly ScriptedReplyConfig[];
  /** An issue at a path below one reply (`[2, 'toolCalls', 0, 'name']`). */
  issue(path: (string | number)[], message: string, suggestion?: string): PathIssue | ConfigIssue;
}

/**
 * What `longhaul validate` finds wrong with the tool calls of the experiment's scripted models:
 * each harness use that offers its model tools (the kernel's HarnessModelUse) has the calls of its
 * model (a record model's wrapped one included) checked against those tools, by name and
 * arguments, as the harness itself checks them at run time. Calls marked `invalid: true` are
 * wrong on purpose and left alone. Issues of inline replies are key paths of the experiment;
 * those of a replies file are located in that file.
 */
export async function checkScriptedToolCalls(
  models: unknown,
  uses: readonly HarnessModelUse[],
  options: { baseDir: string; cwd?: string },
): Promise<(PathIssue | ConfigIssue)[]> {
  const parsed = modelsConfigSchema.safeParse(models);
  if (!parsed.success) return [];
  const configured = parsed.data;
  const issues: (PathIssue | ConfigIssue)[] = [];
  const read = new Map<string, Replies | undefined>();
  for (const use of uses) {
    const name = scriptedModel(configured, use.model ?? Object.keys(configured)[0]);
    if (name === undefined) continue;
    if (!read.has(name)) read.set(name, await repliesOf(name, configured[name]!, options));
    const replies = read.get(name);
    if (replies) issues.push(...checkReplies(replies, use));
  }
  return issues;
}

/** The scripted model a name leads to (through a record model's `wraps`), if it is one. */
function scriptedModel(models: Record<string, ModelConfig>, name: string | undefined): string | undefined {
  const model = name === undefined ? undefined : models[name];
  if (model?.backend === 'record' && model.wraps !== undefined) return scriptedModel(models, model.wraps);
  return model?.backend === 'scripted' ? name : undefined;
}

async function repliesOf(
  name: string,
  model: ModelConfig,
  options: { baseDir: string; cwd?: string },
): Promise<Replies | undefined> {
  if (model.backend !== 'scripted') return undefined;
  if (model.file === undefined) {
    const at = ['models', name, 'replies'];
    return {
      replies: model.replies ?? [],
      issue: (path, message, suggestion) => ({ path: [...at, ...path], message, suggestion }),
    };
  }
  const path = isAbsolute(model.file) ? model.file : resolve(options.baseDir, model.file);
  const shown = relative(options.cwd ?? process.cwd(), path);
  let yaml: Awaited<ReturnType<typeof readYaml>>;
  try {
    yaml = await readYaml(path, shown.startsWith('..') ? path : shown);
  } catch (error) {
    // A file that cannot be read is the models check's to report.
    if (isConfigError(error)) return undefined;
    throw error;
  }
  const list = Array.isArray(yaml.value) ? yaml.value : (yaml.value as { replies?: unknown } | null)?.replies;
  // A file the models check refuses is reported there, not checked here.
  const parsed = z.array(scriptedReplySchema).safeParse(list);
  if (!parsed.success) return undefined;
  const prefix = Array.isArray(yaml.value) ? [] : ['replies'];
  return {
    replies: parsed.data,
    issue: (at, message, suggestion) => yaml.issue([...prefix, ...at], message, suggestion),
  };
}

function checkReplies(replies: Replies, use: HarnessModelUse): (PathIssue | ConfigIssue)[] {
  const issues: (PathIssue | ConfigIssue)[] = [];
  const names = use.tools.map((tool) => tool.name);
  for (const [r, reply] of replies.replies.entries()) {
    for (const [c, call] of (reply.toolCalls ?? []).entries()) {
      if (call.invalid) continue;
      const at = [r, 'toolCalls', c];
      const tool = use.tools.find((candidate) => candidate.name === call.name);
      if (!tool) {
        if (!use.open)
          issues.push(
            replies.issue(
              [...at, 'name'],
              `harness '${use.harness}' offers its model no tool '${call.name}' (its tools: ${names.join(', ')})`,
              closest(call.name, names),
            ),
          );
        continue;
      }
      for (const problem of tool.check(call.input))
        issues.push(
          replies.issue(
            [...at, 'input', ...problem.path],
            `${call.name} of harness '${use.harness}': ${problem.message}`,
            problem.suggestion,
          ),
        );
    }
  }
  return issues;
}
