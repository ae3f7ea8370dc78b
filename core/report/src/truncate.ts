/**
 * Trial content (prompts, diffs, trajectories, test outputs) is what makes a report big. Each
 * text is cut to a limit that shrinks as the run grows, so a 1,000-trial report stays small
 * enough to open quickly; a cut text says so and names the file that holds all of it.
 */

/** Characters each text may keep, for a run of `trials` trials of `steps` steps each on average. */
export function textLimit(trials: number, steps: number): number {
  // Each text costs more than its characters (JSON, the note naming its file, a trajectory's
  // items and a step's cases): 4 M characters of text keep a 1,000-trial report of 5 steps near 12 MB.
  const budget = 4_000_000;
  const texts = Math.max(1, trials) * Math.max(1, steps) * 4;
  return Math.max(200, Math.min(20_000, Math.floor(budget / texts)));
}

export function truncate(text: string, limit: number, file?: string): string {
  if (text.length <= limit) return text;
  const where = file ? `; all of it is in ${file}` : '';
  return `${text.slice(0, limit)}\n… truncated: ${limit} of ${text.length} characters shown${where}`;
}

/** The text limit for a run's step content, from its number of trials and steps per trial. */
export function detailLimit(run: { trials: { steps: unknown[] }[] }): number {
  const steps =
    run.trials.reduce((sum, trial) => sum + trial.steps.length, 0) / Math.max(1, run.trials.length);
  return textLimit(run.trials.length, steps);
}
