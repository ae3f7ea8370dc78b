/**
 * JSON as Python's `json.dumps` writes it with its defaults, which is how the released harness
 * hands every tool result to the model (`json.dumps(result)`): `", "` and `": "` between items,
 * every character outside printable ASCII escaped (`ensure_ascii`), and with `indent` one item a
 * line (what its edit_notebook writes back).
 */
export function pythonJson(value: unknown, indent?: number): string {
  return dump(value, indent, 0);
}

function text(value: string): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function dump(value: unknown, indent: number | undefined, depth: number): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return text(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NaN';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const items: string[] = Array.isArray(value)
    ? value.map((item) => dump(item, indent, depth + 1))
    : Object.entries(value as Record<string, unknown>)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => `${text(key)}: ${dump(item, indent, depth + 1)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return `${open}${close}`;
  if (indent === undefined) return `${open}${items.join(', ')}${close}`;
  const pad = (level: number) => `\n${' '.repeat(indent * level)}`;
  return `${open}${pad(depth + 1)}${items.join(`,${pad(depth + 1)}`)}${pad(depth)}${close}`;
}
