import type { Script, Task, TurnPlan } from '@longhaul/core';
import type { Options } from './index.js';

/**
 * A script plans the turns of a task before anything runs: a pure function of the task. This one
 * gives each step its own turn, tells the agent where it is in the task, scores the step after
 * its turn, and carries the workspace from one step to the next.
 */
export class StepByStepScript implements Script {
  constructor(private readonly options: Options) {}

  plan(task: Task): TurnPlan[] {
    return task.steps.map((step, index) => ({
      prompt: `Step ${index + 1} of ${task.steps.length}.\n\n${step.prompt}`,
      // The first turn of a trial always starts a session.
      session: index === 0 ? 'fresh' : this.options.session,
      workspace: { action: 'carry' },
      steps: [index],
      scores: [index],
      feedbackCycles: this.options.feedbackCycles,
    }));
  }
}
