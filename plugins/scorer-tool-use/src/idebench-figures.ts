import type { Figure, ScorerReportContext, TableFigure, TrialRecord, TrialSpec } from '@longhaul/core';
import { failureModes } from './failure-modes.js';
import { trialSuccess } from './outcome.js';

/** The report section IDE-Bench's figures go to, from both of this package's scorers. */
export const ideBenchSection = 'IDE-Bench';

type Trial = { spec: TrialSpec; record: TrialRecord };

const naturalOrder = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/** The model a condition ran: the models axis', else the harness's `model` option, else its label. */
function modelOf(spec: TrialSpec): string {
  const option = spec.condition.harness.options.model;
  return spec.condition.model ?? (typeof option === 'string' ? option : spec.condition.harness.label);
}

function byCondition(trials: readonly Trial[]): Map<string, Trial[]> {
  const groups = new Map<string, Trial[]>();
  for (const trial of trials)
    groups.set(trial.spec.condition.key, [...(groups.get(trial.spec.condition.key) ?? []), trial]);
  return new Map([...groups].sort(([a], [b]) => naturalOrder(a, b)));
}

const percent = (value: number | null | undefined) =>
  typeof value === 'number' ? `${(value * 100).toFixed(1)}%` : '–';

/**
 * The pass-at-k scorer's figures, as IDE-Bench reports them: pass@1 and pass@k per model with
 * Wilson 95% intervals (the headline table, and a plot of the same with error bars), and the
 * task × model heatmap of the share of attempts that passed.
 */
export function passAtKFigures(ctx: ScorerReportContext, successMetric: string): Figure[] {
  const own = ctx.experimentScores.filter((score) => score.scorer === ctx.label);
  const value = (condition: string, metric: string) => {
    const found = own.find((score) => score.condition === condition && score.metric === metric)?.value;
    return typeof found === 'number' ? found : null;
  };
  const groups = byCondition(ctx.trials);
  // The ks the scorer reported (a k above the repeats is left out by it).
  const ks = [
    ...new Set(
      own
        .map((score) => /^pass_at_(\d+)$/.exec(score.metric)?.[1])
        .filter((k): k is string => k !== undefined)
        .map(Number),
    ),
  ].sort((a, b) => a - b);
  if (groups.size === 0 || ks.length === 0) return [];
  const table: TableFigure = {
    kind: 'table',
    id: 'pass-at-k',
    title: 'IDE-Bench: pass@k per model with Wilson 95% intervals',
    section: ideBenchSection,
    lead: true,
    columns: [
      { key: 'condition', label: 'condition' },
      { key: 'model', label: 'model' },
      ...ks.flatMap((k) => [
        { key: `pass_at_${k}`, label: `pass@${k}`, format: 'percent' as const },
        { key: `pass_at_${k}_ci`, label: `pass@${k} 95% CI`, format: 'text' as const },
      ]),
      { key: 'tasks', label: 'tasks', format: 'number', digits: 0 },
      { key: 'attempts', label: 'attempts', format: 'number', digits: 0 },
    ],
    rows: [...groups].map(([condition, trials]) => ({
      condition,
      model: modelOf(trials[0]!.spec),
      ...Object.fromEntries(
        ks.flatMap((k) => [
          [`pass_at_${k}`, value(condition, `pass_at_${k}`)],
          [
            `pass_at_${k}_ci`,
            value(condition, `pass_at_${k}`) === null
              ? null
              : `[${percent(value(condition, `pass_at_${k}.wilson_low`))}, ${percent(value(condition, `pass_at_${k}.wilson_high`))}]`,
          ],
        ]),
      ),
      tasks: value(condition, 'tasks'),
      attempts: value(condition, 'attempts'),
    })),
    note: `pass@k: Chen et al.'s unbiased estimate from each task's attempts (repeats), averaged over tasks; a task passes an attempt when every scored step has ${successMetric} = 1. Wilson 95% intervals over the tasks (n = tasks).`,
  };
  const plot: Figure = {
    kind: 'plot',
    id: 'pass-at-k-plot',
    title: 'pass@k per model (Wilson 95% intervals)',
    section: ideBenchSection,
    mark: 'bar',
    x: { field: 'k', title: 'k', type: 'ordinal' },
    y: { field: 'value', title: 'pass@k', type: 'quantitative' },
    color: { field: 'condition', title: 'condition' },
    band: { low: 'low', high: 'high' },
    data: [...groups.keys()].flatMap((condition) =>
      ks.flatMap((k) => {
        const p = value(condition, `pass_at_${k}`);
        return p === null
          ? []
          : [
              {
                condition,
                k: `pass@${k}`,
                value: p,
                low: value(condition, `pass_at_${k}.wilson_low`),
                high: value(condition, `pass_at_${k}.wilson_high`),
              },
            ];
      }),
    ),
  };
  const cells = [...groups].flatMap(([condition, trials]) => {
    const tasks = [...new Set(trials.map((t) => t.spec.task.id))].sort(naturalOrder);
    return tasks.flatMap((task) => {
      const outcomes = trials
        .filter((t) => t.spec.task.id === task)
        .map((t) => trialSuccess(t.record, successMetric))
        .filter((o): o is boolean => o !== null);
      return outcomes.length === 0
        ? []
        : [
            {
              condition,
              task,
              passed: outcomes.filter(Boolean).length / outcomes.length,
              attempts: outcomes.length,
            },
          ];
    });
  });
  const heatmap: Figure = {
    kind: 'plot',
    id: 'task-model',
    title: 'Share of attempts passed, task × model',
    section: ideBenchSection,
    mark: 'rect',
    x: { field: 'condition', title: 'condition', type: 'nominal' },
    y: { field: 'task', title: 'task', type: 'nominal' },
    fill: { field: 'passed', title: 'passed', type: 'quantitative' },
    data: cells,
  };
  return cells.length > 0 ? [table, plot, heatmap] : [table, plot];
}

const meanOf = (values: number[]) =>
  values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * The tool-use scorer's figures: tool usage per condition (calls, failed calls, reads, edits,
 * runs, read-to-edit, tools before the first edit; calls per tool as a plot) and the failure
 * modes of the failed attempts, as IDE-Bench's analysis gives them.
 */
export function toolUseFigures(ctx: ScorerReportContext, successMetric: string): Figure[] {
  const key = (metric: string) => `${ctx.label}.${metric}`;
  const groups = byCondition(ctx.trials.filter((t) => typeof t.record.scores[key('calls')] === 'number'));
  if (groups.size === 0) return [];
  const meanScore = (trials: Trial[], metric: string) =>
    meanOf(trials.map((t) => t.record.scores[key(metric)]).filter((v): v is number => typeof v === 'number'));
  const usage: TableFigure = {
    kind: 'table',
    id: 'tool-usage',
    title: 'Tool usage per attempt (means)',
    section: ideBenchSection,
    columns: [
      { key: 'condition', label: 'condition' },
      { key: 'calls', label: 'calls', format: 'number', digits: 1 },
      { key: 'failed_calls', label: 'failed calls', format: 'number', digits: 1 },
      { key: 'reads', label: 'reads', format: 'number', digits: 1 },
      { key: 'edits', label: 'edits', format: 'number', digits: 1 },
      { key: 'execs', label: 'runs', format: 'number', digits: 1 },
      { key: 'read_to_edit', label: 'read-to-edit', format: 'number', digits: 2 },
      { key: 'tools_before_first_edit', label: 'tools before first edit', format: 'number', digits: 1 },
      { key: 'iterations', label: 'iterations', format: 'number', digits: 1 },
    ],
    rows: [...groups].map(([condition, trials]) => ({
      condition,
      ...Object.fromEntries(
        [
          'calls',
          'failed_calls',
          'reads',
          'edits',
          'execs',
          'read_to_edit',
          'tools_before_first_edit',
          'iterations',
        ].map((metric) => [metric, meanScore(trials, metric)]),
      ),
    })),
    note: "Means over a condition's attempts (trials) of the tool-use scorer's counts; '–': no attempt has the count.",
  };
  const prefix = key('tool.');
  const tools = [
    ...new Set(ctx.trials.flatMap((t) => Object.keys(t.record.scores).filter((k) => k.startsWith(prefix)))),
  ].sort(naturalOrder);
  const perTool: Figure = {
    kind: 'plot',
    id: 'calls-per-tool',
    title: 'Calls per tool per attempt (mean)',
    section: ideBenchSection,
    mark: 'bar',
    x: { field: 'tool', title: 'tool', type: 'nominal' },
    y: { field: 'calls', title: 'calls per attempt', type: 'quantitative' },
    color: { field: 'condition', title: 'condition' },
    data: [...groups].flatMap(([condition, trials]) =>
      tools.map((tool) => ({
        condition,
        tool: tool.slice(prefix.length),
        // An attempt that never called the tool called it 0 times: a count, not a missing value.
        calls: meanOf(trials.map((t) => Number(t.record.scores[tool] ?? 0))),
      })),
    ),
  };
  const failed = [...groups].map(
    ([condition, trials]) =>
      [condition, trials.filter((t) => trialSuccess(t.record, successMetric) === false)] as const,
  );
  const modes: TableFigure = {
    kind: 'table',
    id: 'failure-modes',
    title: 'Failure modes of the failed attempts (share of them showing each)',
    section: ideBenchSection,
    columns: [
      { key: 'mode', label: 'failure mode' },
      ...failed.map(([condition, trials]) => ({
        key: condition,
        label: `${condition} (${trials.length} failed)`,
        format: 'percent' as const,
      })),
    ],
    rows: failureModes.map((mode) => ({
      mode: mode.replaceAll('_', ' '),
      ...Object.fromEntries(
        failed.map(([condition, trials]) => [
          condition,
          // No failed attempt: no share to give (not 0%).
          trials.length === 0
            ? null
            : trials.filter((t) => t.record.scores[key(`failure.${mode}`)] === true).length / trials.length,
        ]),
      ),
    })),
    note: "A failed attempt is one whose steps did not all pass; each mode is the tool-use scorer's detection from its trajectory. '–': the condition has no failed attempt.",
  };
  return [usage, ...(tools.length > 0 ? [perTool] : []), modes];
}
