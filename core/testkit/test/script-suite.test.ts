import type { Script, Task, TurnPlan } from '@longhaul/core';
import { describeScript, type ScriptContext, sampleTasks, scriptChecks } from '../src/index.js';
import { describeSuiteTeeth } from './support/failures.js';

/** A correct per-step script, with a hook to break one rule. */
function script(tamper: (plan: TurnPlan[], task: Task) => TurnPlan[] = (plan) => plan): Script {
  return {
    plan: (task) =>
      tamper(
        task.steps.map((step, index) => ({
          prompt: step.prompt,
          session: 'fresh',
          workspace: { action: 'reset', afterStep: index - 1 },
          steps: [index],
          scores: [index],
          feedbackCycles: 0,
        })),
        task,
      ),
  };
}

const context = (s: () => Script): ScriptContext => ({ script: s, tasks: sampleTasks() });
let calls = 0;

const broken: [string, () => Script, string][] = [
  [
    'plans differently on each call',
    () => script((plan) => plan.map((t) => ({ ...t, prompt: `${t.prompt} ${calls++}` }))),
    'pure',
  ],
  [
    'changes the task it plans',
    () =>
      script((plan, task) => {
        task.steps.reverse();
        return plan;
      }),
    'pure',
  ],
  [
    'scores a step twice',
    () => script((plan) => plan.map((t) => ({ ...t, scores: [0, ...t.scores] }))),
    'exactly once',
  ],
  [
    'never scores the last step',
    () => script((plan) => plan.map((t, i) => (i === plan.length - 1 ? { ...t, scores: [] } : t))),
    'exactly once',
  ],
  [
    'scores a step in a turn that does not work on it',
    () => script((plan) => plan.map((t, i) => ({ ...t, scores: [plan.length - 1 - i] }))),
    'among the steps',
  ],
  [
    'continues a session that does not exist',
    () => script((plan) => plan.map((t) => ({ ...t, session: 'continue' }))),
    'fresh session',
  ],
  [
    'gives an empty prompt',
    () => script((plan) => plan.map((t) => ({ ...t, prompt: '  ' }))),
    'have a prompt',
  ],
  [
    'allows half a feedback cycle',
    () => script((plan) => plan.map((t) => ({ ...t, feedbackCycles: 0.5 }))),
    'have a prompt',
  ],
  [
    "resets to the step's own solution",
    () => script((plan) => plan.map((t, i) => ({ ...t, workspace: { action: 'reset', afterStep: i } }))),
    'never goes past',
  ],
];

describeSuiteTeeth(
  'script',
  scriptChecks,
  () => context(() => script()),
  broken.map(([what, make, fragment]) => [what, () => context(make), fragment]),
);

describeScript('a correct per-step script', () => script());
