import { join } from 'node:path';
import type { PytestSuite, Task } from '@longhaul/core';

export interface ScbenchTaskOptions {
  staticAssets?: Record<string, string>;
  markers?: PytestSuite['markers'];
  /** The interpreter in the entrypoint (the suite's own is Debian's). */
  python?: string;
  testTimeoutSeconds?: number;
  /** The whole suite's time limit. */
  timeoutMs?: number;
}

/**
 * A task as the scbench source describes a SlopCodeBench-format problem at `root` (tests/,
 * solutions/checkpoint_N/): the scorer reads it through task metadata only, as that source writes it.
 */
export function scbenchTaskAt(
  root: string,
  entry: string,
  checkpoints: number,
  {
    staticAssets = {},
    markers = { slow: 'functionality' },
    python = '/usr/bin/python3',
    testTimeoutSeconds,
    timeoutMs = 120_000,
  }: ScbenchTaskOptions = {},
): Task {
  const name = root.split('/').at(-1)!;
  const entrypoint = `${python} ${entry}`;
  const suite: PytestSuite = {
    testsDir: join(root, 'tests'),
    python: '/usr/bin/python3',
    entrypoint,
    checkpoints: Array.from({ length: checkpoints }, (_, index) => ({
      name: `checkpoint_${index + 1}`,
      file: `test_checkpoint_${index + 1}.py`,
      includePrior: true,
      testTimeoutSeconds,
    })),
    staticAssets,
    markers,
    timeoutMs,
  };
  return {
    id: name,
    title: name,
    source: 'scbench',
    root,
    entrypoint,
    language: 'python',
    environment: {},
    steps: suite.checkpoints.map((checkpoint, index) => ({
      id: checkpoint.name,
      index,
      prompt: '',
      solution: join(root, 'solutions', checkpoint.name),
      metadata: {},
    })),
    timeouts: { caseMs: 10_000 },
    hash: 'test',
    metadata: { pytest: suite },
  };
}
