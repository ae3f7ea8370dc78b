import type { PluginKind } from '../contracts/plugin.js';
import type { PluginRegistry } from '../plugins/registry.js';
import type { ConfigIssue } from './config-error.js';
import { inEveryUse } from './marked-options.js';
import { modelReferences } from './model-option.js';
import { inSetArgument } from './overrides.js';
import type { IssueAt, LocatedRef } from './plugin-refs.js';
import { closest } from './suggest.js';

/**
 * Every model a plugin's options name (through `modelOption`: a harness's model, a judge, a
 * memory's extractor) must be a model of the experiment's `models:`, or each trial would end
 * `error:model` and the run measure nothing. A written name is refused at its line and column
 * (a `--set` one at its argument), a default the options leave in place at the plugin's ref.
 */
export function modelReferenceIssues(
  located: { kind: PluginKind; refs: LocatedRef[] }[],
  registry: PluginRegistry,
  raw: Record<string, unknown>,
  issueAt: IssueAt,
): ConfigIssue[] {
  const models = raw.models;
  // A malformed models: section is the gateway check's to report.
  if (models !== undefined && (models === null || typeof models !== 'object' || Array.isArray(models)))
    return [];
  const names = Object.keys(models ?? {});
  const notServed = (name: string) =>
    names.length > 0
      ? `model '${name}', which is not one of the experiment's models (${names.join(', ')})`
      : `model '${name}', but the experiment has no models: section`;
  const issues: ConfigIssue[] = [];
  for (const { kind, ref, path, found: reference } of inEveryUse(located, registry, raw, modelReferences)) {
    if (names.includes(reference.name)) continue;
    const option = reference.path.join('.');
    if (reference.defaulted) {
      const what = `${kind} '${ref.label}' option ${option}`;
      issues.push(
        issueAt(
          path,
          `${what} defaults to ${notServed(reference.name)}; add it under models: or set ${option}`,
          closest(reference.name, names),
        ),
      );
      continue;
    }
    issues.push(
      inSetArgument(
        issueAt(
          [...path, 'options', ...reference.path],
          `${kind} '${ref.label}' names ${notServed(reference.name)}; add it under models: or name one of those`,
          closest(reference.name, names),
        ),
      ),
    );
  }
  return issues;
}
