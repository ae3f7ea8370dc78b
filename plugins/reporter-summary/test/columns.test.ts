import type { ReportContext, StepRecord, TableFigure, TrialRecord, TrialSpec } from '@longhaul/core';
import { testFolder } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin, { SummaryReporter } from '../src/index.js';
import { trials } from './fixture.js';

/** The fixture's trials with a scorer of one's own beside the tests: todo-count. */
function withTodoCount(extra: (index: number) => Record<string, number> = () => ({})) {
  return trials().map(({ spec, record }) => ({
    spec: { ...spec, scorers: [...spec.scorers, { id: 'todo-count', options: {}, label: 'todo-count' }] },
    record: {
      ...record,
      steps: record.steps.map((step) => ({
        ...step,
        scores: {
          ...step.scores,
          'todo-count.todos': step.index + (record.condition === 'agent' ? 2 : 0),
          'todo-count.files': 3,
          ...extra(step.index),
        },
      })),
    },
  }));
}

/** The fixture's trials (with todo-count) with each step changed; `agent` is the agent's condition. */
function changeSteps(change: (step: StepRecord, agent: boolean) => StepRecord) {
  return withTodoCount().map(({ spec, record }) => ({
    spec,
    record: { ...record, steps: record.steps.map((step) => change(step, record.condition === 'agent')) },
  }));
}

async function print(
  options: Record<string, unknown>,
  list: { spec: TrialSpec; record: TrialRecord }[] = withTodoCount(),
  width?: number,
): Promise<{ lines: string[]; figure: TableFigure }> {
  const printed: string[] = [];
  const context: ReportContext = {
    runDir: await testFolder('longhaul-summary-'),
    experiment: { name: 'todo', file: '/experiments/todo.yaml' },
    trials: list,
    experimentScores: [],
    print: (text) => printed.push(text),
    width,
  };
  const reporter = new SummaryReporter(plugin.options.parse(options));
  await reporter.finish(context);
  return { lines: printed[0]!.split('\n'), figure: reporter.figures(context)[0] as TableFigure };
}

describe('score columns of the summary table', () => {
  it("shows a scorer of one's own by default: the mean of each score over the scored steps, in the scorer's order", async () => {
    const { lines, figure } = await print({});
    // The agent's crashed step scored todos 3 as well; only its scored steps count: (2+3+4+2)/4.
    expect(lines.slice(0, 3)).toEqual([
      'condition  trials  steps  scored  errored  cancelled  strict     iso    core  todo-count.todos  todo-count.files   cost  trial time    wall',
      'agent           2      6       4        2          0   50.0%   75.0%   75.0%             2.750                 3  $2.00      2m 00s  1m 30s',
      'oracle          1      3       3        0          0  100.0%  100.0%  100.0%             1.000                 3  $0.00      1m 00s  1m 00s',
    ]);
    expect(lines).toContain(
      'todo-count.todos, todo-count.files: mean over the scored steps (and trials) that have the score',
    );
    expect(figure.columns.map((column) => column.label)).toContain('todo-count.todos');
    expect(figure.rows.map((row) => row['score:todo-count.todos'])).toEqual([2.75, 1]);
    expect(figure.note).toContain('todo-count.todos, todo-count.files: mean over the scored steps');
  });

  it('leaves steps without a value out of a mean, never as 0, and says how many per condition', async () => {
    // The agent left no code at its first step: nothing to measure erosion over.
    const list = withTodoCount((index) => ({ 'quality.erosion': 0.2 * (index + 1) }));
    for (const { record } of list)
      if (record.condition === 'agent')
        (record.steps[0]!.scores as Record<string, number | null>)['quality.erosion'] = null;
    const { lines } = await print({ columns: ['quality.erosion'] }, list);
    // agent: steps 2 and 3 of r1 (0.4, 0.6); its r2's step 1 had none; the crashed step is not scored.
    expect(lines[1]).toMatch(/75\.0%\s+0\.500 {2}\$2\.00/);
    expect(lines[2]).toMatch(/100\.0%\s+0\.400 {2}\$0\.00/);
    expect(lines).toContain(
      'quality.erosion: steps without a value left out of the mean, not taken as 0: 2 in agent',
    );
  });

  it('flags the scored steps where most tool calls failed, beside the solve rates', async () => {
    const list = changeSteps((step, agent) => ({
      ...step,
      // The agent's write_file calls all failed validation at its first step.
      tools: agent && step.index === 0 ? { calls: 6, failed: 6 } : { calls: 4, failed: 1 },
    }));
    const { lines, figure } = await print({ columns: [] }, list);
    expect(lines.slice(0, 3)).toEqual([
      'condition  trials  steps  scored  errored  cancelled  strict     iso    core  tools failed   cost  trial time    wall',
      'agent           2      6       4        2          0   50.0%   75.0%   75.0%             2  $2.00      2m 00s  1m 30s',
      'oracle          1      3       3        0          0  100.0%  100.0%  100.0%             0  $0.00      1m 00s  1m 00s',
    ]);
    expect(lines).toContain(
      "tools failed: scored steps where most of the agent's tool calls failed (the step's scores.json says why)",
    );
    expect(figure.rows.map((row) => row.toolFailures)).toEqual([2, 0]);
  });

  it('counts the steps with tamper signals beside the solve rates, failed ones included', async () => {
    // The agent planted a conftest hook at its second step, the one that crashed in r2 too.
    const hooked = (agent: boolean, index: number) => (agent && index === 1 ? 1 : 0);
    const list = changeSteps((step, agent) => ({
      ...step,
      scores: {
        ...step.scores,
        'integrity.tamper': 2 * hooked(agent, step.index),
        'integrity.hooks': hooked(agent, step.index),
      },
    }));
    const { lines, figure } = await print({}, list);
    expect(lines[0]).toMatch(/ +core +tamper +todo-count\.todos +todo-count\.files +cost/);
    expect(lines[1]).toMatch(/^agent .* 75\.0% +2 +2\.750 /);
    expect(lines[2]).toMatch(/^oracle .* 100\.0% +0 +1\.000 /);
    expect(lines.find((line) => line.startsWith('tamper:'))).toContain('runner hooks');
    expect(figure.rows.map((row) => row.tampered)).toEqual([2, 0]);
  });

  it('shows the scores the columns option names, in its order, and only those', async () => {
    const { lines } = await print({ columns: ['todo-count.todos', 'tests.pass_rate'] });
    expect(lines[0]).toMatch(/core {2}todo-count\.todos {2}tests\.pass_rate {3}cost/);
    expect(lines[1]).toMatch(/75\.0%\s+2\.750\s+0\.688 {2}\$2\.00/);
    expect(lines[0]).not.toContain('todo-count.files');
    const { lines: none } = await print({ columns: [] });
    expect(none[0]).toMatch(/core {3}cost/);
    expect(none.join('\n')).not.toContain('mean over the scored steps');
  });

  it('names a column no step scored, with the closest score and every score the run has', async () => {
    const { lines } = await print({ columns: ['todo-count.todo', 'todo-count.files'] });
    expect(lines[0]).toMatch(/core {2}todo-count\.files {3}cost/);
    expect(lines).toContain(
      'summary: columns names todo-count.todo, which no step or trial of this run scored (did you mean todo-count.todos?); its scores: tests.core, tests.iso, tests.pass_rate, tests.solved_steps, tests.strict, todo-count.files, todo-count.todos',
    );
  });

  it('shows four scores by default and names the ones it left out', async () => {
    const { lines } = await print(
      {},
      withTodoCount(() => ({ 'todo-count.a': 1, 'todo-count.b': 2, 'todo-count.c': 0.5 })),
    );
    expect(lines[0]).toMatch(
      /core {2}todo-count\.todos {2}todo-count\.files {2}todo-count\.a {2}todo-count\.b {3}cost/,
    );
    expect(lines).toContain(
      "1 more score in summary.json (todo-count.c); the summary reporter's columns option chooses the table's",
    );
  });

  it('splits the table to fit the terminal, every part starting with the condition', async () => {
    const { lines } = await print({}, withTodoCount(), 80);
    const table = lines.slice(
      0,
      lines.findIndex((line) => line.startsWith('strict:')),
    );
    expect(table.every((line) => line.length <= 80)).toBe(true);
    expect(table.filter((line) => line.startsWith('condition')).length).toBeGreaterThan(1);
    expect(table.filter((line) => line.startsWith('agent')).length).toBe(
      table.filter((line) => line.startsWith('condition')).length,
    );
    expect(table.join('\n')).toMatch(/todo-count\.todos[\s\S]*2\.750/);
  });
});
