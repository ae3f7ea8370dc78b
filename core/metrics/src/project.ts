import { analyzeSources } from './batch.js';
import { churnBetween } from './churn.js';
import type { SourceFile } from './discovery.js';
import { analyzeFile, type FileAnalysis } from './file-analysis.js';
import { optionsKey, type PreviousResults, reusable } from './incremental.js';
import { languageOfPath, registerGrammars } from './languages/registry.js';
import type { LanguageSpec } from './languages/types.js';
import { buildMatcher, type Matcher } from './matcher.js';
import { type MetricsOptions, resolveOptions } from './options.js';
import type { CallableMetrics, FileMetrics, RuleHit } from './results.js';
import { rulesFor } from './rules/engine.js';
import { ruleGuards, rulePack } from './rules/pack.js';
import { debtMinutesPerWeight } from './rules/types.js';

/** The project-level values, keyed as the `quality` scorer reports them (without the prefix). */
export interface QualitySummary {
  files: number;
  loc: number;
  callables: number;
  /** Ratios and extremes over nothing measured (no code, no callables, no rule pack) are null, not 0. */
  erosion: number | null;
  verbosity: number | null;
  clone_ratio: number | null;
  clone_lines: number;
  clone_groups: number;
  violation_rate: number | null;
  rule_hits: number;
  flagged_lines: number;
  max_cc: number | null;
  mean_cc: number | null;
  high_cc_count: number;
  cognitive_complexity: number;
  max_cognitive: number | null;
  technical_debt_minutes: number;
  parse_errors: number;
  /** Against the previous snapshot; null without one (or when the previous one had no code). */
  lines_added: number | null;
  lines_removed: number | null;
  churn_ratio: number | null;
  delta_loc: number | null;
}

export interface CloneInstance {
  file: string;
  startLine: number;
  endLine: number;
}

export interface ProjectReport {
  summary: QualitySummary;
  files: FileMetrics[];
  callables: CallableMetrics[];
  hits: RuleHit[];
  clones: CloneInstance[][];
  options: MetricsOptions;
  /** This measurement's per-file results, to pass as `reuse` when measuring the next snapshot. */
  results: PreviousResults;
  /** Files measured by this call; the others reused their results from `reuse`. */
  measured: number;
}

const matchers = new Map<string, Matcher>();

/** The matcher of a language for the rule selection of `options` (built once, then cached). */
export function matcherFor(spec: LanguageSpec, options: MetricsOptions): Matcher {
  registerGrammars();
  const selection = options.rules
    ? `${[...options.disabledRules].sort().join(',')}|${options.onlyRules ? [...options.onlyRules].sort().join(',') : '*'}`
    : 'none';
  const key = `${spec.id}|${selection}`;
  let matcher = matchers.get(key);
  if (!matcher) {
    const pack = options.rules ? rulesFor(spec, rulePack, options.disabledRules, options.onlyRules) : [];
    matcher = buildMatcher(spec, pack, ruleGuards[spec.family]);
    matchers.set(key, matcher);
  }
  return matcher;
}

/** Measures one file on its own (no clones: they need the whole project). */
export function analyzeSource(source: SourceFile, options: Partial<MetricsOptions> = {}): FileAnalysis {
  const resolved = resolveOptions(options);
  const spec = languageOfPath(source.path);
  if (!spec) throw new Error(`${source.path}: no supported language for this file extension`);
  return analyzeFile(source.path, source.text, spec, matcherFor(spec, resolved), resolved);
}

/** A share of nothing (no lines, no callables, no mass) was not measured: null, never 0. */
function ratio(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

/** The largest value, or null over no values. */
function largest(values: readonly number[]): number | null {
  return values.length > 0 ? values.reduce((max, value) => Math.max(max, value)) : null;
}

/** Analyzes the sources without a reusable result in `reuse`; gives every analysis, in order. */
async function analyzeChanged(
  sources: readonly SourceFile[],
  options: MetricsOptions,
  reuse: PreviousResults | undefined,
): Promise<{ analyses: FileAnalysis[]; results: PreviousResults; measured: number }> {
  const { hashes, reused, missing } = reusable(sources, options, reuse);
  const measured = missing.length ? await analyzeSources(missing, options) : [];
  let next = 0;
  const analyses = reused.map((analysis) => analysis ?? measured[next++]!);
  const files = new Map<string, { hash: string; analysis: FileAnalysis }>();
  for (const [index, source] of sources.entries())
    files.set(source.path, { hash: hashes[index]!, analysis: analyses[index]! });
  return { analyses, results: { options: optionsKey(options), files }, measured: missing.length };
}

/**
 * Measures a set of sources (see README for every metric). `previous` is the snapshot before,
 * for churn. `reuse` is the `results` of an earlier call (normally on `previous`): files whose path
 * and content are unchanged take their per-file results from it instead of being parsed again;
 * everything that depends on several files (clones, verbosity, totals) is computed afresh, so the
 * report equals a full measurement.
 */
export async function analyzeProject(
  sources: readonly SourceFile[],
  options: Partial<MetricsOptions> = {},
  previous?: readonly SourceFile[],
  reuse?: PreviousResults,
): Promise<ProjectReport> {
  const resolved = resolveOptions(options);
  const { analyses, results, measured } = await analyzeChanged(sources, resolved, reuse);
  const clones = findClones(analyses);
  const callables = analyses.flatMap((analysis) => analysis.callables);
  const hits = analyses.flatMap((analysis) => analysis.hits);
  const files = analyses.map((analysis) => analysis.metrics);

  const loc = sum(files.map((file) => file.loc));
  const totalMass = sum(callables.map((callable) => callable.mass));
  const high = callables.filter((callable) => callable.cc > resolved.ccThreshold);
  const cloneLines = sum(files.map((file) => file.cloneLines));
  const debt =
    sum(hits.map((hit) => hit.weight * debtMinutesPerWeight)) +
    sum(
      callables
        .filter((callable) => callable.depth === 0 && callable.cognitive > resolved.cognitiveThreshold)
        .map((callable) => 5 + callable.cognitive - resolved.cognitiveThreshold),
    ) +
    duplicationDebt(clones);

  const summary: QualitySummary = {
    files: files.length,
    loc,
    callables: callables.length,
    erosion: ratio(sum(high.map((callable) => callable.mass)), totalMass),
    // Verbose lines are clone lines and lines the rule pack flags: without the pack, half unmeasured.
    verbosity: resolved.rules ? ratio(sum(files.map((file) => file.verboseLines)), loc) : null,
    clone_ratio: ratio(cloneLines, loc),
    clone_lines: cloneLines,
    clone_groups: clones.length,
    violation_rate: resolved.rules ? ratio(hits.length, loc) : null,
    rule_hits: hits.length,
    flagged_lines: sum(files.map((file) => file.flaggedLines)),
    max_cc: largest(callables.map((callable) => callable.cc)),
    mean_cc: ratio(sum(callables.map((callable) => callable.cc)), callables.length),
    high_cc_count: high.length,
    cognitive_complexity: sum(files.map((file) => file.cognitive)),
    max_cognitive: largest(callables.map((callable) => callable.cognitive)),
    technical_debt_minutes: debt,
    parse_errors: sum(files.map((file) => file.parseErrors)),
    lines_added: null,
    lines_removed: null,
    churn_ratio: null,
    delta_loc: null,
  };
  if (previous) {
    // LOC does not depend on the rule pack: files missing from `reuse` are measured without it.
    const { reused, missing } = reusable(previous, resolved, reuse);
    const before =
      sum(reused.map((analysis) => analysis?.metrics.loc ?? 0)) +
      sum((await analyzeSources(missing, { ...resolved, rules: false })).map((file) => file.metrics.loc));
    const churn = churnBetween(previous, sources);
    summary.lines_added = churn.added;
    summary.lines_removed = churn.removed;
    summary.churn_ratio = before > 0 ? (churn.added + churn.removed) / before : null;
    summary.delta_loc = before > 0 ? (loc - before) / before : null;
  }
  return { summary, files, callables, hits, clones, options: resolved, results, measured };
}

/** Groups identical candidates across files; marks clone lines and verbose lines per file. */
function findClones(analyses: FileAnalysis[]): CloneInstance[][] {
  const groups = new Map<string, { analysis: FileAnalysis; startLine: number; endLine: number }[]>();
  for (const analysis of analyses) {
    for (const candidate of analysis.candidates) {
      const list = groups.get(candidate.hash);
      const instance = { analysis, startLine: candidate.startLine, endLine: candidate.endLine };
      if (list) list.push(instance);
      else groups.set(candidate.hash, [instance]);
    }
  }
  const spans = new Map<FileAnalysis, [number, number][]>();
  const result: CloneInstance[][] = [];
  for (const instances of groups.values()) {
    if (instances.length < 2) continue;
    result.push(
      instances.map(({ analysis, startLine, endLine }) => {
        const list = spans.get(analysis) ?? [];
        list.push([startLine, endLine]);
        spans.set(analysis, list);
        return { file: analysis.metrics.path, startLine: startLine + 1, endLine: endLine + 1 };
      }),
    );
  }
  // Clone lines: the code lines of the union of instance spans (merged, so nested and repeated
  // instances cost nothing extra).
  for (const [analysis, list] of spans) {
    list.sort((a, b) => a[0] - b[0]);
    const cloned = new Uint8Array(analysis.code.length);
    let count = 0;
    let reach = -1;
    for (const [start, end] of list) {
      for (let line = Math.max(start, reach + 1); line <= end; line++) {
        if (analysis.code[line]) {
          cloned[line] = 1;
          count++;
        }
      }
      reach = Math.max(reach, end);
    }
    analysis.metrics.cloneLines = count;
    let verbose = count;
    for (const line of analysis.flagged) if (!cloned[line]) verbose++;
    analysis.metrics.verboseLines = verbose;
  }
  return result;
}

/** 10 minutes per duplicated block beyond the first of its group, counting outermost blocks only. */
function duplicationDebt(groups: CloneInstance[][]): number {
  const byFile = new Map<string, { instance: CloneInstance; group: number }[]>();
  groups.forEach((group, index) => {
    for (const instance of group) {
      const list = byFile.get(instance.file) ?? [];
      list.push({ instance, group: index });
      byFile.set(instance.file, list);
    }
  });
  const outerCount = new Array<number>(groups.length).fill(0);
  for (const list of byFile.values()) {
    list.sort(
      (a, b) => a.instance.startLine - b.instance.startLine || b.instance.endLine - a.instance.endLine,
    );
    let reach = -1;
    for (const { instance, group } of list) {
      if (instance.endLine <= reach) continue;
      reach = instance.endLine;
      outerCount[group]!++;
    }
  }
  return outerCount.reduce((total, count) => total + 10 * Math.max(0, count - 1), 0);
}

function sum(values: number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
