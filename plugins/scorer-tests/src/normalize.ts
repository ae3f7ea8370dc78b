import type { Normalizer } from '@longhaul/core';

/** Applies normalizers in a fixed order, whatever order the case lists them in. */
export function normalizeText(text: string, normalizers: readonly Normalizer[] = []): string {
  let out = text.replace(/\r\n/g, '\n');
  if (normalizers.includes('lowercase')) out = out.toLowerCase();
  if (normalizers.includes('whitespace')) {
    out = out
      .split('\n')
      .map((line) => line.replace(/\s+/g, ' ').trim())
      .filter((line) => line !== '')
      .join('\n');
  } else if (normalizers.includes('trim')) {
    out = out
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trim();
  }
  if (normalizers.includes('sortLines')) {
    const trailing = out.endsWith('\n');
    const lines = (trailing ? out.slice(0, -1) : out).split('\n').sort();
    out = lines.join('\n') + (trailing ? '\n' : '');
  }
  return out;
}

/** JSON with object keys sorted, so equal data prints equal text (for diffs and line sorting). */
export function canonicalJson(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
