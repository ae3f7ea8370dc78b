import { isDeepStrictEqual } from 'node:util';
import type { PluginKind } from '../contracts/plugin.js';
import type { PluginRef } from '../contracts/trial.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { type ConfigIssue, formatIssue } from './config-error.js';
import { schemaIssues } from './schema-issues.js';
import { closest } from './suggest.js';

export type IssueAt = (path: (string | number)[], message: string, suggestion?: string) => ConfigIssue;

/** A resolved ref and where it is written. */
export interface LocatedRef {
  ref: PluginRef;
  path: (string | number)[];
}

type RawRef = string | { id: string; options?: Record<string, unknown>; label?: string };

/**
 * Resolves the refs of one experiment field (already shaped by the kernel schema: a ref or a list
 * of refs) against the registry: unknown ids get a suggestion, options are checked against the
 * plugin's own schema, and labels are assigned (`id#n` when one id appears with several options).
 */
export function resolveRefs(
  field: string,
  kind: PluginKind,
  value: RawRef | RawRef[],
  registry: PluginRegistry,
  issueAt: IssueAt,
): { refs: LocatedRef[]; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const entries = Array.isArray(value)
    ? value.map((raw, index) => ({ raw, path: [field, index] as (string | number)[] }))
    : [{ raw: value, path: [field] as (string | number)[] }];
  const resolved: (LocatedRef & { explicitLabel: boolean })[] = [];
  for (const { raw, path } of entries) {
    const { id, options, label } =
      typeof raw === 'string' ? { id: raw, options: undefined, label: undefined } : raw;
    const idPath = typeof raw === 'string' ? path : [...path, 'id'];
    const plugin = registry.get(kind, id);
    const problems = plugin ? [] : registry.problems(kind, id);
    if (problems.length > 0) {
      for (const problem of problems) {
        issues.push(issueAt(idPath, `${kind} '${id}' cannot be used: ${formatIssue(problem)}`));
      }
      continue;
    }
    if (!plugin) {
      // Every installed id is offered, loaded or not: only the ones named are imported.
      const known = registry.declared(kind).map((p) => p.id);
      const listing = known.length > 0 ? `installed: ${known.join(', ')}` : `no ${kind} plugin is installed`;
      const near = closest(id, known);
      // Not a slip of the pen: say which package would bring it, longhaul's named <kind>-<id>.
      const install = near ? '' : `; longhaul's would be in the package @longhaul/${kind}-${id}`;
      issues.push(issueAt(idPath, `unknown ${kind} '${id}' (${listing}${install})`, near));
      continue;
    }
    const checked = schemaIssues(plugin.definition.options, options ?? {});
    for (const issue of checked.issues) {
      const at = [...path, 'options', ...issue.path];
      const last = issue.path[issue.path.length - 1];
      issues.push(
        issueAt(
          at,
          issue.message,
          issue.known && typeof last === 'string' ? closest(last, issue.known) : undefined,
        ),
      );
    }
    if (checked.issues.length > 0) continue;
    resolved.push({
      ref: { id, options: (checked.data ?? {}) as Record<string, unknown>, label: label ?? id },
      path,
      explicitLabel: label !== undefined,
    });
  }
  issues.push(...assignLabels(field, kind, resolved, issueAt));
  return { refs: resolved, issues };
}

function assignLabels(
  field: string,
  kind: PluginKind,
  entries: (LocatedRef & { explicitLabel: boolean })[],
  issueAt: IssueAt,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const byId = new Map<string, (LocatedRef & { explicitLabel: boolean })[]>();
  for (const entry of entries) {
    if (entry.explicitLabel) continue;
    byId.set(entry.ref.id, [...(byId.get(entry.ref.id) ?? []), entry]);
  }
  for (const [id, group] of byId) {
    if (group.length < 2) continue;
    group.forEach((entry, index) => {
      const twin = group
        .slice(0, index)
        .find((other) => isDeepStrictEqual(other.ref.options, entry.ref.options));
      if (twin) {
        issues.push(
          issueAt(
            entry.path,
            `${kind} '${id}' is listed twice in ${field} with the same options; remove one or give each a label`,
          ),
        );
      }
      entry.ref.label = `${id}#${index + 1}`;
    });
  }
  const seen = new Map<string, LocatedRef>();
  for (const entry of entries) {
    if (seen.has(entry.ref.label)) {
      issues.push(
        issueAt(
          entry.explicitLabel ? [...entry.path, 'label'] : entry.path,
          `label '${entry.ref.label}' is used twice in ${field}; labels name conditions, so each must be unique`,
        ),
      );
    }
    seen.set(entry.ref.label, entry);
  }
  return issues;
}
