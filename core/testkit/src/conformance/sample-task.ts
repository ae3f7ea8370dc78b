import type { Task } from '@longhaul/core';

/** A task with `steps` steps, each with a prompt, a reference solution path and a cases path. */
export function sampleTask(steps: number, overrides: Partial<Task> = {}): Task {
  const root = `/conformance/tasks/sample-${steps}`;
  return {
    id: `sample-${steps}`,
    title: `Sample task with ${steps} steps`,
    source: 'conformance',
    root,
    entrypoint: 'python main.py',
    language: 'python',
    environment: {},
    seed: `${root}/seed`,
    steps: Array.from({ length: steps }, (_, index) => ({
      id: `${String(index + 1).padStart(2, '0')}-part-${index + 1}`,
      index,
      title: `Part ${index + 1}`,
      prompt: `Make \`python main.py part${index + 1}\` print "${index + 1}".`,
      solution: `${root}/steps/${index + 1}/solution`,
      cases: `${root}/steps/${index + 1}/cases`,
      metadata: {},
    })),
    timeouts: { caseMs: 10_000 },
    hash: `sample-${steps}-hash`,
    metadata: {},
    ...overrides,
  };
}

/** The tasks every script is planned over: one step, three steps, five steps with a full spec. */
export function sampleTasks(): Task[] {
  return [
    sampleTask(1),
    sampleTask(3),
    sampleTask(5, { fullSpec: 'Build a program with five parts, as follows.' }),
  ];
}
