import { z } from 'zod';
import type { PluginKind } from '../contracts/plugin.js';
import type { PluginRegistry } from '../plugins/registry.js';
import type { ConfigIssue } from './config-error.js';
import { inEveryUse, markedValues } from './marked-options.js';
import { inSetArgument } from './overrides.js';
import type { IssueAt, LocatedRef } from './plugin-refs.js';
import { closest } from './suggest.js';

/**
 * The options schemas `scoreOption` made, kept on globalThis for the reason `modelOptions` is: a
 * plugin may load another copy of this module than the kernel's.
 */
const shared = globalThis as { [key: symbol]: WeakMap<object, true> | undefined };
const key = Symbol.for('longhaul.scoreOptions');
shared[key] ??= new WeakMap();
const scoreOptions: WeakMap<object, true> = shared[key];

/**
 * The schema of a plugin option that names a score, `<scorer label>.<metric>` (a reporter's
 * column, say). Declared this way, a written name whose scorer label is none of the experiment's
 * scorers is refused when the experiment is loaded, at the option's line and column. Which
 * metrics a scorer gives is known only once it has scored: the plugin checks those itself.
 */
export function scoreOption(description: string) {
  const schema = z
    .string()
    .regex(/^[^.]+\..+$/, 'expected a score name, <scorer label>.<metric>')
    .describe(description);
  scoreOptions.set(schema, true);
  return schema;
}

/**
 * Every score a plugin's options name (through `scoreOption`) must begin with the label of one of
 * the experiment's scorers and a dot; a name given as a default is the plugin's to justify.
 */
export function scoreReferenceIssues(
  uses: {
    located: { kind: PluginKind; refs: LocatedRef[] }[];
    registry: PluginRegistry;
    raw: Record<string, unknown>;
    /**
     * Labels of scorers the experiment names that could not be used (an unknown id): their own
     * problem is reported, so a score named after them is not reported again.
     */
    unresolved?: readonly string[];
  },
  issueAt: IssueAt,
): ConfigIssue[] {
  const { located, registry, raw, unresolved = [] } = uses;
  const labels = located
    .filter(({ kind }) => kind === 'scorer')
    .flatMap(({ refs }) => refs.map(({ ref }) => ref.label));
  const issues: ConfigIssue[] = [];
  const read = (schema: z.ZodType, options: unknown, written: unknown) =>
    markedValues(schema, options, written, scoreOptions);
  for (const { kind, ref, path, found } of inEveryUse(located, registry, raw, read)) {
    if (found.defaulted || typeof found.value !== 'string') continue;
    const name = found.value;
    if ([...labels, ...unresolved].some((label) => name.startsWith(`${label}.`))) continue;
    const label = name.slice(0, name.indexOf('.'));
    const near = closest(label, labels);
    const scorers = labels.length > 0 ? `its scorers: ${labels.join(', ')}` : 'it has no scorers';
    issues.push(
      inSetArgument(
        issueAt(
          [...path, 'options', ...found.path],
          `${kind} '${ref.label}' names score '${name}', but no scorer of the experiment is labelled '${label}' (${scorers})`,
          near === undefined ? undefined : `${near}${name.slice(label.length)}`,
        ),
      ),
    );
  }
  return issues;
}
