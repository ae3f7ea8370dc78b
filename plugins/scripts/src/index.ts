import { definePlugin, type Task, type TurnPlan, tokens } from '@longhaul/core';
import { defaultTemplate, notes, type ScriptOptions, scriptOptions } from './options.js';
import { planCheckpoints, planConversation, planIsolated, planSingleShot } from './plans.js';
import { type ResolvedOptions, withPrompt } from './prompts.js';
import type { SweStepsScript } from './swe-steps-prompts.js';

export { defaultTemplate, notes, type ScriptOptions, scriptOptions } from './options.js';
export { planCheckpoints, planConversation, planIsolated, planSingleShot } from './plans.js';
export { placeholders } from './prompt.js';
export {
  type PromptName,
  type PromptPreset,
  promptNames,
  prompts,
  type ResolvedOptions,
  withPrompt,
} from './prompts.js';
export { sweStepsFeedbackCycles, sweStepsPrompts } from './swe-steps-prompts.js';

interface ScriptEntry {
  id: SweStepsScript;
  description: string;
  continuationNote: string;
  plan: (task: Task, options: ResolvedOptions<ScriptOptions>) => TurnPlan[];
  /** Offers the `sandbox` option (scripts whose every turn starts a fresh session). */
  freshSandbox?: boolean;
  /** Offers the `planningTurn` option. */
  planning?: boolean;
}

function scriptPlugin({ id, description, continuationNote, plan, freshSandbox, planning }: ScriptEntry) {
  return definePlugin({
    kind: 'script',
    id,
    description,
    options: scriptOptions({ firstNote: notes.first, continuationNote }, { sandbox: freshSandbox, planning }),
    register(bind, options) {
      const resolved = withPrompt(options, id);
      // A task whose prompts are complete as written gets them so, unless the experiment framed them.
      const framedByExperiment =
        options.prompt !== undefined ||
        options.template !== defaultTemplate ||
        options.firstNote !== notes.first ||
        options.continuationNote !== continuationNote;
      const asWritten = { ...resolved, template: '{{spec}}', firstNote: '', continuationNote: '' };
      bind(tokens.Script).toConstantValue({
        plan: (task: Task) => plan(task, task.promptsAsWritten && !framedByExperiment ? asWritten : resolved),
      });
    },
  });
}

const entries: ScriptEntry[] = [
  {
    id: 'checkpoints',
    description: 'A fresh session per step; the workspace carries over (SlopCodeBench)',
    continuationNote: notes.ownWork,
    plan: planCheckpoints,
    freshSandbox: true,
  },
  {
    id: 'conversation',
    description:
      'One session across all steps; the workspace carries over (SWE-STEPS global, SLUMP emergent)',
    continuationNote: notes.nextInConversation,
    plan: planConversation,
  },
  {
    id: 'single-shot',
    description: 'Every step in one turn, every step scored at the end (SLUMP control, SWE-STEPS PRD)',
    continuationNote: notes.ownWork,
    plan: planSingleShot,
    planning: true,
  },
  {
    id: 'isolated',
    description:
      'Before each step the workspace is reset to the reference after the previous one; fresh session (SWE-STEPS individual)',
    continuationNote: notes.reference,
    plan: planIsolated,
    freshSandbox: true,
  },
];

const plugins = entries.map(scriptPlugin);
export const [checkpoints, conversation, singleShot, isolated] = plugins as [
  (typeof plugins)[number],
  (typeof plugins)[number],
  (typeof plugins)[number],
  (typeof plugins)[number],
];

export default plugins;
