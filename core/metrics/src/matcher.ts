import { type NapiConfig, parse } from '@ast-grep/napi';
import type { LanguageSpec, Rule } from './languages/types.js';
import type { KindGuard, RuleGroup, SlopRule } from './rules/types.js';

/**
 * The rule with each `regex` replaced by a test that always holds. A regex means the same in every
 * grammar, and compiling one costs more than the rest of a rule: checking a rule against a grammar
 * needs only its kinds, fields and patterns (a bad regex still fails the matcher's compilation).
 */
function withoutRegexes(rule: unknown): unknown {
  if (Array.isArray(rule)) return rule.map(withoutRegexes);
  if (rule === null || typeof rule !== 'object') return rule;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rule)) if (key !== 'regex') copy[key] = withoutRegexes(value);
  if ('regex' in rule) copy.all = [...((copy.all as unknown[]) ?? []), { not: { kind: 'ERROR' } }];
  return copy;
}

/**
 * The rule with its metavariables renamed apart: `$X` becomes `$X_<owner>` in every pattern. The
 * rules of a kind are tested in one match, whose captures they share, so a `$X` bound by one rule
 * (or by a group's condition) would otherwise have to equal the `$X` of every rule tested after
 * it, and a node two rules flag would be reported for only one of them. Names beginning with `_`
 * capture nothing and stay as they are.
 */
function ownMetavariables(rule: unknown, owner: string): unknown {
  if (Array.isArray(rule)) return rule.map((inner) => ownMetavariables(inner, owner));
  if (rule === null || typeof rule !== 'object') return rule;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rule)) {
    copy[key] =
      key === 'pattern' && typeof value === 'string'
        ? value.replace(/\$(\$\$?)?([A-Z][A-Z0-9_]*)/g, (_, multi = '', name) => `$${multi}${name}_${owner}`)
        : ownMetavariables(value, owner);
  }
  return copy;
}

/** Whether a rule compiles for a grammar (grammars of one family differ in a few node kinds). */
export function compiles(spec: LanguageSpec, rule: Rule): boolean {
  try {
    parse(spec.lang, '')
      .root()
      .findAll({ rule: withoutRegexes(rule) as Rule });
    return true;
  } catch {
    return false;
  }
}

/** See `buildMatcher`: any size from 4 to 9 does as well. */
const partsPerBucket = 6;

/** The node kinds the analysis reads, by role. */
export interface Classifier {
  callables: Set<string>;
  scopes: Set<string>;
  decisions: Set<string>;
  radon: Set<string>;
  clones: Set<string>;
  cognitive: Set<string>;
}

/**
 * One ast-grep rule that finds, in a single pass, every node the analysis needs and every slop-rule
 * finding. ast-grep compiles a rule on each call, so everything goes into one rule that is
 * compiled once per language (and once per batch of files with `findInFiles`).
 *
 * Per node kind K the rule is: "K, and either some slop rule of K matches (tagged $HIT, with
 * optional tags $R0…$Rn naming each rule of K that matches, and $CLS when the analysis also reads
 * the node) or K is a node the analysis reads". A node returned without $HIT is one the analysis
 * reads.
 */
export interface Matcher {
  config: NapiConfig;
  classifier: Classifier;
  /** Slop rules by node kind; rule i of a kind is tagged `$R<i>`. */
  rules: Map<string, SlopRule[]>;
  /** Rules of the pack this grammar cannot run (they name kinds it lacks). */
  skipped: SlopRule[];
  /** Kinds the analysis reads on every node. */
  plainKinds: Set<string>;
  /** Kinds the analysis reads only when the `$CLS` tag is set. */
  taggedKinds: Set<string>;
}

function alternatives(rule: Rule | undefined): Rule[] {
  if (!rule) return [];
  return rule.any && !rule.kind ? rule.any.flatMap((inner) => alternatives(inner)) : [rule];
}

const always = (kind: string): Rule => ({ not: { kind: kind === 'ERROR' ? 'comment' : 'ERROR' } });

/** `rule` if it holds, else nothing: a test that never fails, for the tags it sets. */
function optional(rule: Rule, kind: string): Rule {
  return { any: [rule, always(kind)] };
}

function optionalTag(rule: Rule, tag: string, kind: string): Rule {
  return optional({ all: [rule, { pattern: tag }] }, kind);
}

/**
 * The condition a node of a kind must meet before it is tested against the rules of that kind: the
 * declared guard, or, when every rule of the kind tests the node's text with a regex, one regex
 * that admits what any of them admits (so most nodes cost one regex instead of one per rule).
 */
function guardOf(rules: readonly SlopRule[], declared: Rule | undefined): Rule | undefined {
  if (declared) return declared;
  const regexes = rules.map((rule) => rule.rule.regex);
  if (rules.length < 2 || regexes.some((regex) => typeof regex !== 'string')) return undefined;
  return { regex: regexes.map((regex) => `(?:${regex})`).join('|') };
}

/**
 * The rules of one kind, each as `referents` gives it, with the rules of a group behind the
 * group's condition: `group(when, inner)` makes the one entry that stands for a group. Rule ids of
 * the group that are not among `referents` (left out of this matcher) are skipped, and so is a
 * group left with none.
 */
function groupedReferents(
  referents: ReadonlyMap<string, Rule>,
  groups: readonly RuleGroup[],
  group: (when: Rule, inner: Rule[]) => Rule,
): Rule[] {
  const grouped = new Set<string>();
  let count = 0;
  const build = (entries: RuleGroup['rules']): Rule[] =>
    entries.flatMap((entry): Rule[] => {
      if (typeof entry !== 'string') {
        const when = ownMetavariables(entry.when, `G${count++}`) as Rule;
        const inner = build(entry.rules);
        return inner.length ? [group(when, inner)] : [];
      }
      const referent = referents.get(entry);
      if (!referent) return [];
      grouped.add(entry);
      return [referent];
    });
  const inGroups = build(groups);
  return [...[...referents].filter(([id]) => !grouped.has(id)).map(([, referent]) => referent), ...inGroups];
}

export function buildMatcher(
  spec: LanguageSpec,
  pack: readonly SlopRule[],
  guards: Readonly<Record<string, KindGuard>> = {},
): Matcher {
  const valid = (rule: Rule) => compiles(spec, rule);
  const plainKinds = new Set(
    ['ERROR', ...spec.callableKinds, ...spec.scopeKinds, ...spec.cloneKinds].filter((kind) =>
      valid({ kind }),
    ),
  );
  const conditional = new Map<string, Rule[]>();
  const roleKinds = { decisions: new Set<string>(), radon: new Set<string>(), cognitive: new Set<string>() };
  const sources: [keyof typeof roleKinds | 'docstring', Rule | undefined][] = [
    ['decisions', spec.decisionRule],
    ['radon', spec.radonRule],
    ['cognitive', spec.cognitiveRule],
    ['docstring', spec.docstringRule],
  ];
  for (const [role, rule] of sources) {
    for (const alternative of alternatives(rule)) {
      if (!valid(alternative)) continue;
      const kind = String(alternative.kind);
      if (role !== 'docstring') roleKinds[role].add(kind);
      if (Object.keys(alternative).length === 1) plainKinds.add(kind);
      else conditional.set(kind, [...(conditional.get(kind) ?? []), alternative]);
    }
  }
  const taggedKinds = new Set([...conditional.keys()].filter((kind) => !plainKinds.has(kind)));

  const runnable = pack.filter((rule) => valid(rule.rule));
  const rules = new Map<string, SlopRule[]>();
  for (const rule of runnable) rules.set(rule.rule.kind, [...(rules.get(rule.rule.kind) ?? []), rule]);

  // Each slop rule is compiled once, as a utility rule that the match and its tag both reference:
  // written out twice, its patterns and regexes would be compiled twice.
  const utils: Record<string, Rule> = {};
  const parts: Rule[] = [];
  for (const kind of new Set([...plainKinds, ...taggedKinds, ...rules.keys()])) {
    const roleTags = Object.entries(spec.roleTags?.[kind] ?? {}).map(([tag, rule]) =>
      optionalTag(rule, `$${tag}`, kind),
    );
    const read: Rule | undefined = plainKinds.has(kind)
      ? { kind, ...(roleTags.length ? { all: roleTags } : {}) }
      : taggedKinds.has(kind)
        ? { any: conditional.get(kind)!, ...(roleTags.length ? { all: roleTags } : {}) }
        : undefined;
    const ofKind = rules.get(kind);
    if (!ofKind) {
      parts.push({
        kind,
        ...(read && !plainKinds.has(kind) ? { all: [read] } : {}),
        ...(read && plainKinds.has(kind) ? read : {}),
      });
      continue;
    }
    const referents = ofKind.map((rule, index): Rule => {
      utils[`${kind}-${index}`] = ownMetavariables(rule.rule, `R${index}`) as Rule;
      return { matches: `${kind}-${index}` };
    });
    const guard = guardOf(ofKind, guards[kind]?.when);
    const groups = guards[kind]?.groups ?? [];
    if (plainKinds.has(kind)) {
      // Every node of the kind is reported anyway: each rule is tested once and, when it matches,
      // tags the node with its own tag and $HIT. Tested as alternatives, the rules would stop at
      // the first that matches, and the tags of a hit would test every rule of the kind again.
      const flags = groupedReferents(
        new Map(
          ofKind.map((rule, index) => [
            rule.id,
            optional({ all: [referents[index]!, { pattern: `$R${index}` }, { pattern: '$HIT' }] }, kind),
          ]),
        ),
        groups,
        (when, inner) => optional({ all: [when, ...inner] }, kind),
      );
      const tested = optional({ all: [...(guard ? [guard] : []), ...flags] }, kind);
      parts.push({ kind, all: [tested, ...roleTags] });
      continue;
    }
    // Tags are only evaluated once some rule of the kind has matched.
    const tags = referents.map((rule, index) => optionalTag(rule, `$R${index}`, kind));
    if (read && taggedKinds.has(kind)) tags.push(optionalTag(read, '$CLS', kind));
    tags.push(...roleTags);
    const alternatives = groupedReferents(
      new Map(ofKind.map((rule, index) => [rule.id, referents[index]!])),
      groups,
      (when, inner) => ({ all: [when, { any: inner }] }),
    );
    // `all` tests in order: the guard first, the rules only on the nodes it admits.
    const hit: Rule = {
      all: [...(guard ? [guard] : []), { any: alternatives }, { pattern: '$HIT' }, ...tags],
    };
    parts.push({ kind, any: read ? [hit, read] : [hit] });
  }
  const classifier: Classifier = {
    callables: new Set(spec.callableKinds),
    scopes: new Set(spec.scopeKinds),
    decisions: roleKinds.decisions,
    radon: roleKinds.radon,
    clones: new Set(spec.cloneKinds),
    cognitive: roleKinds.cognitive,
  };
  // The root makes every parsed file report at least one node.
  parts.push({ kind: spec.rootKind });
  // Every node of a kind some part names is tested against the parts one after the other, and most
  // are matched by none (calls, strings and comments that no rule flags). In an `any` of a few
  // parts each, ast-grep passes over a whole bucket at once when it names another kind: with the
  // Python pack, 3% fewer instructions in ast-grep (bench/quality/README.md).
  const buckets: Rule[] = [];
  for (let start = 0; start < parts.length; start += partsPerBucket)
    buckets.push({ any: parts.slice(start, start + partsPerBucket) });
  return {
    config: { rule: { any: buckets }, utils },
    classifier,
    rules,
    skipped: pack.filter((rule) => !runnable.includes(rule)),
    plainKinds,
    taggedKinds,
  };
}
