function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * The first place where `actual` differs from `expected`, as `$.path: reason`, or undefined when
 * they are equal. Object key order never matters; numbers match within `tolerance`.
 */
export function jsonDifference(
  expected: unknown,
  actual: unknown,
  tolerance = 0,
  path = '$',
): string | undefined {
  if (kind(expected) !== kind(actual)) {
    return `${path}: expected ${kind(expected)} ${show(expected)}, got ${kind(actual)} ${show(actual)}`;
  }
  if (typeof expected === 'number') {
    return Math.abs(expected - (actual as number)) <= tolerance
      ? undefined
      : `${path}: expected ${expected}, got ${actual}`;
  }
  if (Array.isArray(expected)) {
    const items = actual as unknown[];
    if (items.length !== expected.length) {
      return `${path}: expected ${expected.length} items, got ${items.length}`;
    }
    for (const [index, item] of expected.entries()) {
      const difference = jsonDifference(item, items[index], tolerance, `${path}[${index}]`);
      if (difference) return difference;
    }
    return undefined;
  }
  if (expected && typeof expected === 'object') {
    const object = actual as Record<string, unknown>;
    const wanted = expected as Record<string, unknown>;
    const missing = Object.keys(wanted).filter((key) => !(key in object));
    if (missing.length) return `${path}: missing key ${show(missing.sort()[0])}`;
    const extra = Object.keys(object).filter((key) => !(key in wanted));
    if (extra.length) return `${path}: unexpected key ${show(extra.sort()[0])}`;
    for (const key of Object.keys(wanted).sort()) {
      const difference = jsonDifference(wanted[key], object[key], tolerance, `${path}.${key}`);
      if (difference) return difference;
    }
    return undefined;
  }
  return expected === actual ? undefined : `${path}: expected ${show(expected)}, got ${show(actual)}`;
}
