import type { Task, TrajectoryEvent, TurnResult } from '@longhaul/core';
import { sampleTask } from '@longhaul/testkit';
import type { LanguageModel } from 'ai';
import { type IdeOptions, type IdeSettings, ideOptions, settle } from '../../src/options.js';
import { IdeSession, type IdeState } from '../../src/session.js';
import { BackgroundProcesses } from '../../src/tools/background.js';
import { PathPolicy } from '../../src/tools/policy.js';
import { SyntaxChecker } from '../../src/tools/syntax.js';
import type { IdeTool, ToolContext } from '../../src/tools/tool.js';
import type { DirSandbox } from './dir-sandbox.js';

export function options(overrides: Partial<IdeOptions> = {}): IdeSettings {
  return settle({ ...ideOptions.parse({}), retryDelaySeconds: 0.001, ...overrides });
}

export function session(
  sandbox: DirSandbox,
  model: LanguageModel,
  overrides: Partial<IdeOptions> = {},
  resume?: IdeState,
  extra: IdeTool[] = [],
  prompts: { system: string; firstMessagePrefix?: string } = { system: 'system' },
): IdeSession {
  const resolved = { model, name: 'mock', viaGateway: false };
  return new IdeSession(
    sandbox,
    options(overrides),
    resolved,
    prompts.system,
    resume,
    extra,
    undefined,
    prompts.firstMessagePrefix,
  );
}

export async function turn(
  s: IdeSession,
  prompt = 'Fix it.',
  signal: AbortSignal = new AbortController().signal,
  task: Task = sampleTask(1),
): Promise<{ events: TrajectoryEvent[]; result: TurnResult }> {
  const events: TrajectoryEvent[] = [];
  for await (const event of s.turn(prompt, { signal, focus: { task, steps: task.steps }, limits: {} }))
    events.push(event);
  const last = events.at(-1);
  if (last?.type !== 'turn.end') throw new Error('the turn did not end with turn.end');
  return { events, result: last.result };
}

export function toolContext(sandbox: DirSandbox, overrides: Partial<IdeOptions> = {}): ToolContext {
  const o = options(overrides);
  return {
    sandbox,
    policy: new PathPolicy(sandbox.workspace, o.protected),
    options: o,
    signal: new AbortController().signal,
    background: new BackgroundProcesses(),
    syntax: new SyntaxChecker(sandbox),
  };
}

/** Tool results of a trajectory, parsed (command output follows a JSON header line). */
export function results(events: TrajectoryEvent[]): Record<string, unknown>[] {
  return events.flatMap((e) => {
    if (e.type !== 'tool.result') return [];
    try {
      return [JSON.parse(e.output) as Record<string, unknown>];
    } catch {
      const [header, ...rest] = e.output.split('\n');
      const stdout = rest
        .join('\n')
        .replace(/^stdout:\n/, '')
        .replace(/\nstderr:\n[\s\S]*$/, '');
      return [{ ...(JSON.parse(header!) as Record<string, unknown>), stdout }];
    }
  });
}
