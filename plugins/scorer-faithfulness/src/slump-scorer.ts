import {
  type ConditionScore,
  type ExperimentScoreContext,
  type Scorer,
  stepOutcome,
  type TrialRecord,
  type TrialSpec,
} from '@longhaul/core';
import { gapRecovery, mean, relativeImprovement, slumpLoss, summarize } from './formulas.js';
import type { SlumpOptions } from './options.js';

type Trial = { spec: TrialSpec; record: TrialRecord };

/** The final value of `key` in a trial: its trial-level score, else the last step that has one. */
export function finalScore(record: TrialRecord, key: string): number | null {
  const trialValue = record.scores[key];
  if (typeof trialValue === 'number') return trialValue;
  for (const step of [...record.steps].reverse()) {
    const value = step.scores[key];
    if (typeof value === 'number') return value;
  }
  return null;
}

/** What pairs conditions: everything but the script and the memory. */
function armOf(spec: TrialSpec): string {
  const { harness, environment, model } = spec.condition;
  return [harness.label, environment.label, model ?? ''].join('/');
}

interface Cell {
  condition: string;
  arm: string;
  script: string;
  memory: string;
  /** Per task: the mean over repeats of each metric, over the trials that ended scored. */
  tasks: Map<string, Record<string, number | null>>;
  /** Trials by outcome: an errored or cancelled trial's last scores are not its final state. */
  outcomes: { scored: number; errored: number; cancelled: number };
}

function meanOrNull(values: (number | null)[]): number | null {
  const present = values.filter((value): value is number => value !== null);
  return present.length ? mean(present) : null;
}

/**
 * SLUMP across conditions: for each condition its macro mean of every metric, the loss
 * (single-shot control − condition), the gap recovery of memories under the emergent script
 * ((memory − emergent) / (control − emergent), when the gap is positive) and wins/ties/losses
 * per task against the emergent baseline.
 */
export class SlumpScorer implements Extract<Scorer, { scope: 'experiment' }> {
  readonly scope = 'experiment';
  readonly version = '1';

  constructor(private readonly options: SlumpOptions) {}

  async score(ctx: ExperimentScoreContext): Promise<ConditionScore[]> {
    const cells = this.cells(ctx.trials);
    const scores: ConditionScore[] = [];
    for (const cell of cells.values()) {
      for (const [outcome, count] of Object.entries(cell.outcomes))
        scores.push({ condition: cell.condition, metric: `trials.${outcome}`, value: count });
      const control = this.find(cells, cell.arm, this.options.controlScript, this.options.baselineMemory);
      const emergent = this.find(cells, cell.arm, this.options.emergentScript, this.options.baselineMemory);
      for (const metric of this.options.metrics) {
        const own = this.column(cell, metric);
        const value = meanOrNull([...own.values()]);
        scores.push({ condition: cell.condition, metric, value, detail: Object.fromEntries(own) });
        if (control && cell !== control) {
          const controlValue = meanOrNull([...this.column(control, metric).values()]);
          scores.push({
            condition: cell.condition,
            metric: `loss.${metric}`,
            value: slumpLoss(controlValue, value),
          });
          if (emergent && cell.script === this.options.emergentScript && cell !== emergent) {
            const emergentValue = meanOrNull([...this.column(emergent, metric).values()]);
            scores.push(
              {
                condition: cell.condition,
                metric: `recovery.${metric}`,
                value: gapRecovery(value, emergentValue, controlValue),
              },
              {
                condition: cell.condition,
                metric: `relative.${metric}`,
                value: relativeImprovement(value, emergentValue),
              },
            );
          }
        }
        if (emergent && cell !== emergent) scores.push(...this.versus(cell, emergent, metric));
      }
    }
    return scores;
  }

  /** Per-task wins/ties/losses of a condition against the emergent baseline. */
  private versus(cell: Cell, emergent: Cell, metric: string): ConditionScore[] {
    const own = this.column(cell, metric);
    const base = this.column(emergent, metric);
    const deltas = [...own].map(([task, value]) => {
      const other = base.get(task) ?? null;
      return value === null || other === null ? null : value - other;
    });
    const summary = summarize(deltas, this.options.tieTolerance);
    return [
      { condition: cell.condition, metric: `wins.${metric}`, value: summary.wins },
      { condition: cell.condition, metric: `ties.${metric}`, value: summary.ties },
      { condition: cell.condition, metric: `losses.${metric}`, value: summary.losses },
    ];
  }

  private column(cell: Cell, metric: string): Map<string, number | null> {
    return new Map([...cell.tasks].map(([task, values]) => [task, values[metric] ?? null]));
  }

  private find(cells: Map<string, Cell>, arm: string, script: string, memory: string): Cell | undefined {
    return [...cells.values()].find(
      (cell) => cell.arm === arm && cell.script === script && cell.memory === memory,
    );
  }

  private cells(trials: readonly Trial[]): Map<string, Cell> {
    const grouped = new Map<string, { cell: Cell; repeats: Map<string, Record<string, number | null>[]> }>();
    for (const { spec, record } of trials) {
      const key = spec.condition.key;
      let entry = grouped.get(key);
      if (!entry) {
        entry = {
          cell: {
            condition: key,
            arm: armOf(spec),
            script: spec.condition.script.label,
            memory: spec.condition.memory.label,
            tasks: new Map(),
            outcomes: { scored: 0, errored: 0, cancelled: 0 },
          },
          repeats: new Map(),
        };
        grouped.set(key, entry);
      }
      const { outcome } = stepOutcome(undefined, record.status);
      if (outcome !== 'scored') {
        if (outcome !== 'missing') entry.cell.outcomes[outcome] += 1;
        continue;
      }
      entry.cell.outcomes.scored += 1;
      const values = Object.fromEntries(
        this.options.metrics.map((metric) => [
          metric,
          finalScore(record, `${this.options.scorer}.${metric}`),
        ]),
      );
      const list = entry.repeats.get(spec.task.id) ?? [];
      list.push(values);
      entry.repeats.set(spec.task.id, list);
    }
    const cells = new Map<string, Cell>();
    for (const [key, { cell, repeats }] of grouped) {
      for (const [task, list] of repeats)
        cell.tasks.set(
          task,
          Object.fromEntries(
            this.options.metrics.map((metric) => [
              metric,
              meanOrNull(list.map((values) => values[metric] ?? null)),
            ]),
          ),
        );
      cells.set(key, cell);
    }
    return cells;
  }
}
