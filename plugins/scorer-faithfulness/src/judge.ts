import type { Component } from '@longhaul/core';
import { generateText, type LanguageModel, Output, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import type { RepoView } from './repo-view.js';
import { type RubricScore, rubricLabel, rubricText } from './rubric.js';

export const verdictSchema = z.object({
  score: z.number().int().min(0).max(4).describe('Rubric level, 0 (Absent) to 4 (Faithful)'),
  evidence: z
    .array(
      z.object({
        path: z.string().describe('A file of the repository'),
        lines: z.string().describe('Line range, e.g. "12-40"; empty when the whole file'),
      }),
    )
    .describe('Where the component is (or would be) implemented'),
  rationale: z.string().describe('Why this level and not the neighbouring ones'),
});

export interface Verdict {
  component: string;
  score: RubricScore;
  label: string;
  evidence: { path: string; lines: string }[];
  rationale: string;
  toolCalls: number;
}

export const judgeSystemPrompt = `You are a bounded repository judge. You decide how faithfully a code repository implements ONE component of an intended design.

You are given only the component's description. You may inspect the repository with the tools list_files, read_file and grep; you have at most {{budget}} tool calls in total, so search before you read. You cannot run code.

Score the component with this rubric:
{{rubric}}

Score 3 when the code differs in form but keeps the same functional behaviour and system role; score 4 only when it closely matches both the intended formulation and its architectural realization (where it lives and how it is wired into the rest of the system). Score 0 only after you have searched for the component under plausible names and found nothing.

Answer with the score, the evidence (files and line ranges) and a short rationale.`;

export function judgePrompt(component: Component): string {
  const location = component.location ? `\nExpected location or behaviour: ${component.location}` : '';
  return `Component ${component.id}\n\n${component.description}${location}`;
}

export interface JudgeOptions {
  maxToolCalls: number;
  signal?: AbortSignal;
  temperature?: number;
}

/** Judges one component against the repository in a fresh context of its own. */
export async function judgeComponent(
  model: LanguageModel,
  component: Component,
  repo: RepoView,
  options: JudgeOptions,
): Promise<Verdict> {
  let calls = 0;
  const budgeted =
    <T>(run: (input: T) => string) =>
    (input: T): string => {
      calls++;
      if (calls > options.maxToolCalls)
        return `Tool budget of ${options.maxToolCalls} calls is used up; give your verdict now.`;
      return run(input);
    };
  const tools = {
    list_files: tool({
      description: 'List the files and directories directly under a directory of the repository',
      inputSchema: z.object({ path: z.string().describe('Directory, "" for the root').default('') }),
      execute: async ({ path }) => budgeted((dir: string) => repo.list(dir).join('\n') || '(empty)')(path),
    }),
    read_file: tool({
      description: 'Read a file of the repository with line numbers, optionally a line range',
      inputSchema: z.object({
        path: z.string(),
        start: z.number().int().min(1).optional(),
        end: z.number().int().min(1).optional(),
      }),
      execute: async (input) =>
        budgeted(
          (args: typeof input) => repo.read(args.path, args.start, args.end) ?? `No file ${args.path}`,
        )(input),
    }),
    grep: tool({
      description: 'Lines matching a regular expression, as path:line: text',
      inputSchema: z.object({
        pattern: z.string(),
        path: z.string().describe('Only under this directory').optional(),
      }),
      execute: async (input) =>
        budgeted((args: typeof input) => repo.grep(args.pattern, args.path).join('\n') || 'No matches')(
          input,
        ),
    }),
  };
  const system = judgeSystemPrompt
    .replace('{{budget}}', String(options.maxToolCalls))
    .replace('{{rubric}}', rubricText());
  const result = await generateText({
    model,
    system,
    prompt: judgePrompt(component),
    tools,
    output: Output.object({ schema: verdictSchema }),
    stopWhen: stepCountIs(options.maxToolCalls + 2),
    prepareStep: () => (calls >= options.maxToolCalls ? { activeTools: [], toolChoice: 'none' } : {}),
    temperature: options.temperature,
    abortSignal: options.signal,
    maxRetries: 2,
  });
  const verdict = result.output;
  const score = verdict.score as RubricScore;
  return {
    component: component.id,
    score,
    label: rubricLabel(score),
    evidence: verdict.evidence,
    rationale: verdict.rationale,
    toolCalls: Math.min(calls, options.maxToolCalls),
  };
}
