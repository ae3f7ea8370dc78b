import type { StampedRunEvent } from './events.js';
import type { Figure } from './figure.js';
import type { ConditionScore } from './scorer.js';
import type { TrialRecord, TrialSpec } from './trial.js';

export interface ReportContext {
  runDir: string;
  experiment: { name: string; file: string };
  trials: { spec: TrialSpec; record: TrialRecord }[];
  /** Experiment-scope scores, keyed by `<scorer>.<metric>` inside each entry. */
  experimentScores: (ConditionScore & { scorer: string })[];
  /** Where human-readable output goes (the terminal, or nowhere in tests). */
  print(text: string): void;
  /** The terminal's width in characters when `print` goes to one: a wider table is split to fit. */
  width?: number;
}

export interface Reporter {
  onEvent?(event: StampedRunEvent): void;
  finish(ctx: ReportContext): Promise<void>;
  /**
   * The tables and plots this reporter adds to the HTML report, as data. Called after `finish`;
   * the run stores them in figures.json, where `longhaul report` and `longhaul view` read them.
   */
  figures?(ctx: ReportContext): Figure[] | Promise<Figure[]>;
}
