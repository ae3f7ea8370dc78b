/** Whether `id` matches `pattern`: an exact id, or a glob where `*` is any run and `?` one character. */
export function matchesTaskPattern(id: string, pattern: string): boolean {
  if (!/[*?]/.test(pattern)) return id === pattern;
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(id);
}
