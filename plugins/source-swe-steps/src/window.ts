/** Bad input to mining (a date, a length, a missing image): the CLI prints its message alone. */
export class MineInputError extends Error {
  override name = 'MineInputError';
}

/**
 * The window's bounds as instants. A bare date (`2025-03-31`) covers that whole day in UTC:
 * `--since` starts at its first second, `--until` ends at its last.
 */
export function windowBounds(since: string, until: string): { start: number; end: number } {
  const bound = (text: string, option: string, endOfDay: boolean) => {
    const day = /^\d{4}-\d{2}-\d{2}$/.test(text);
    const value = Date.parse(day ? `${text}T${endOfDay ? '23:59:59.999' : '00:00:00'}Z` : text);
    if (Number.isNaN(value))
      throw new MineInputError(`${option} ${text}: not a date (use YYYY-MM-DD or an ISO 8601 time)`);
    return value;
  };
  const start = bound(since, '--since', false);
  const end = bound(until, '--until', true);
  if (end < start) throw new MineInputError(`--until ${until} is before --since ${since}`);
  return { start, end };
}
