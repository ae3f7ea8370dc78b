/**
 * Trial content (prompts, diffs, trajectories, test outputs) is what makes a report big. Each
 * text is cut to a limit that shrinks as the run grows, so a 1,000-trial report stays small
 * enough to open quickly; a cut text says so and names the file that holds all of it.
 */

/** Characters each text may keep, for a run of `trials` trials of `steps` steps each on average. */
export function textLimit(trials: number, steps: number): number {
  const budget = 12_000_000;
  const texts = Math.max(1, trials) * Math.max(1, steps) * 4;
  return Math.max(400, Math.min(20_000, Math.floor(budget / texts)));
}

export function truncate(text: string, limit: number, file?: string): string {
  if (text.length <= limit) return text;
  const where = file ? `; all of it is in ${file}` : '';
  return `${text.slice(0, limit)}\n… truncated: ${limit} of ${text.length} characters shown${where}`;
}
