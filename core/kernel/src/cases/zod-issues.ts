import type { z } from 'zod';
import type { ConfigIssue } from '../config/config-error.js';
import type { KeyPath, YamlFile } from '../config/yaml-file.js';

/** The closest of `candidates` to `word`, when it is close enough to be a likely misspelling. */
export function closestName(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/** Keys an object schema accepts at `path` (through optional, default, array and record layers). */
function knownKeys(schema: z.ZodType, path: KeyPath): string[] {
  let def = defOf(schema);
  let rest = [...path];
  for (;;) {
    const inner = def.innerType ?? def.in;
    if (inner) {
      def = defOf(inner);
      continue;
    }
    if (def.type === 'union' && def.options) {
      return def.options.flatMap((option) => knownKeys(option, rest));
    }
    if (rest.length === 0) return def.shape ? Object.keys(def.shape) : [];
    const [part, ...tail] = rest;
    const next =
      def.type === 'object'
        ? def.shape?.[String(part)]
        : def.type === 'array'
          ? def.element
          : def.type === 'record'
            ? def.valueType
            : undefined;
    if (!next) return [];
    def = defOf(next);
    rest = tail;
  }
}

/**
 * Turns a zod error for a YAML file into located issues: each unknown key on its own line with
 * the closest accepted key as a suggestion.
 */
export function zodConfigIssues(file: YamlFile, error: z.ZodError, schema: z.ZodType): ConfigIssue[] {
  return error.issues.flatMap((issue): ConfigIssue[] => {
    const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const accepted = knownKeys(schema, path);
      return issue.keys.map((key) =>
        file.issue([...path, key], `unknown key '${key}'`, closestName(key, accepted)),
      );
    }
    return [file.issue(path, issue.message)];
  });
}
