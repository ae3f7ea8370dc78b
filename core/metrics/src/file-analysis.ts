import { parse, type SgNode } from '@ast-grep/napi';
import type { LexicalSpan } from './clone-hash.js';
import { FileTokens } from './clone-hash.js';
import {
  type CognitiveRole,
  continuedLogicalRole,
  fieldText,
  hybridRole,
  type LanguageSpec,
  sequenceStarts,
} from './languages/types.js';
import { type LexicalTokens, lex } from './lexer.js';
import type { Classifier, Matcher } from './matcher.js';
import type { MetricsOptions } from './options.js';
import type { CallableMetrics, FileMetrics, RuleHit } from './results.js';
import { isSuppressed, readSuppressions, type SuppressionComment } from './rules/suppression.js';
import type { SlopRule } from './rules/types.js';
import { codeLines, countIn, type MaskedSpan, prefixSums } from './sloc.js';

/** A clone candidate: its normalized hash and zero-based line span. */
export interface CloneCandidate {
  hash: string;
  startLine: number;
  endLine: number;
}

/** Everything the project-level pass needs from one file. */
export interface FileAnalysis {
  metrics: FileMetrics;
  callables: CallableMetrics[];
  hits: RuleHit[];
  /** Zero-based flags: the line is a logical line of code. */
  code: Uint8Array;
  /** Zero-based code lines flagged by a rule. */
  flagged: Set<number>;
  candidates: CloneCandidate[];
}

interface Open {
  end: number;
  /** Where nesting inside it begins. */
  region: number;
  /** Index into callables, or -1 for a nesting structure that is not a callable. */
  callable: number;
}

/** An open boolean operator: where it ends, and where its operands that continue its sequence start. */
interface OpenOperator {
  end: number;
  left: number;
  right: number;
}

interface PendingCallable {
  /** The node kind, read once from the tree: each read is a call into ast-grep. */
  kind: string;
  name: string;
  start: number;
  end: number;
  startLine: number;
  endLine: number;
  depth: number;
  qualified: string;
  cc: number;
  cognitive: number;
  /** A Map, not an object: a dictionary object per callable with its own keys gives V8 a new shape each time. */
  decisions: Map<string, number>;
  ancestors: number[];
}

const noSequence = { left: -1, right: -1 };

/** The tags `$R0`… naming the rules of a kind in the matcher (see `buildMatcher`). */
const ruleTags = Array.from({ length: 64 }, (_, index) => `R${index}`);

/** Analyzes one source file on its own (parses it and runs the matcher). */
export function analyzeFile(
  path: string,
  text: string,
  spec: LanguageSpec,
  matcher: Matcher,
  options: MetricsOptions,
): FileAnalysis {
  return analyzeNodes(
    path,
    text,
    spec,
    matcher,
    parse(spec.lang, text).root().findAll(matcher.config),
    options,
  );
}

/** A node the analysis reads, with its kind and extent read once (each read is a call into ast-grep). */
interface Item {
  node: SgNode;
  kind: string;
  start: number;
  end: number;
  startLine: number;
  endLine: number;
}

interface RuleMatch {
  rule: SlopRule;
  startLine: number;
  endLine: number;
}

/** A file's comments, strings and docstrings: hidden from line counts (`masked`) and clone hashes (`spans`). */
interface Lexical {
  masked: MaskedSpan[];
  spans: LexicalSpan[];
}

/**
 * Analyzes one source file from the nodes the matcher found in it. Clone groups and verbosity
 * need every file: see `analyzeProject`.
 *
 * The work is split into small functions on purpose: V8 optimizes each on its own, and when a
 * file brings a shape it has not seen, it recompiles only the small function that met it, not
 * one large function (see bench/quality/README.md).
 */
export function analyzeNodes(
  path: string,
  text: string,
  spec: LanguageSpec,
  matcher: Matcher,
  nodes: readonly SgNode[],
  options: MetricsOptions,
): FileAnalysis {
  const lineStarts = lineStartsOf(text);
  const tokens = lex(text, spec.family);
  const lexical = lexicalSpans(tokens, lineStarts);
  const items: Item[] = [];
  const ruleMatches: RuleMatch[] = [];
  const parseErrors = classify(nodes, spec, matcher, lineStarts, lexical, items, ruleMatches);
  const code = codeLines(text, lexical.masked);
  const prefix = prefixSums(code);
  const walk = new Walk(text, spec, matcher.classifier, options, outermostSpans(lexical.spans), prefix);
  for (const item of items) walk.visit(item);
  const callables = walk.finish();
  const { hits, flagged, suppressedHits } = ruleHits(path, text, tokens, lineStarts, code, ruleMatches);

  let maxCc = 0;
  for (let i = 0; i < callables.length; i++) if (callables[i]!.cc > maxCc) maxCc = callables[i]!.cc;
  const metrics: FileMetrics = {
    path,
    language: spec.id,
    loc: prefix[code.length]!,
    lines: code.length - (text.endsWith('\n') ? 1 : 0),
    callables: callables.length,
    maxCc,
    cognitive: walk.fileCognitive,
    ruleHits: hits.length,
    suppressedHits,
    flaggedLines: flagged.size,
    cloneLines: 0,
    verboseLines: flagged.size,
    parseErrors,
  };
  return {
    metrics,
    callables: callableResults(path, spec, callables, prefix, options),
    hits,
    code,
    flagged,
    candidates: walk.candidates,
  };
}

/** Lexical spans: comments and strings from the lexer (docstrings come from the tree). */
function lexicalSpans(tokens: LexicalTokens, lineStarts: Int32Array): Lexical {
  const masked: MaskedSpan[] = [];
  const spans: LexicalSpan[] = [];
  for (let i = 0; i < tokens.comments.length; i += 2) {
    const start = tokens.comments[i]!;
    const end = tokens.comments[i + 1]!;
    masked.push({ start, end, endLine: lineOf(lineStarts, end) });
    spans.push({ start, end, replacement: '' });
  }
  for (let i = 0; i < tokens.strings.length; i += 2) {
    const start = tokens.strings[i]!;
    const end = tokens.strings[i + 1]!;
    const endLine = lineOf(lineStarts, end);
    if (endLine > lineOf(lineStarts, start)) masked.push({ start: start + 1, end, endLine });
    spans.push({ start, end, replacement: '$STR' });
  }
  return { masked, spans };
}

/**
 * Sorts the matched nodes into rule matches, docstrings (added to the lexical spans) and the items
 * the walk reads; returns the number of parse errors.
 */
function classify(
  nodes: readonly SgNode[],
  spec: LanguageSpec,
  matcher: Matcher,
  lineStarts: Int32Array,
  lexical: Lexical,
  items: Item[],
  ruleMatches: RuleMatch[],
): number {
  let parseErrors = 0;
  for (const node of nodes) {
    const kind = node.kind() as string;
    if (kind === 'ERROR') {
      parseErrors++;
      continue;
    }
    if (kind === spec.rootKind) continue;
    const ofKind = matcher.rules.get(kind);
    const plain = matcher.plainKinds.has(kind);
    const taggedKind = matcher.taggedKinds.has(kind);
    // A node of a kind the analysis does not read is reported only when some rule matched it.
    const hit = ofKind !== undefined && ((!plain && !taggedKind) || node.getMatch('HIT') !== null);
    const read = plain || (taggedKind && (!hit || node.getMatch('CLS')));
    if (!hit && !read) continue;
    // The node's offsets from the edit that would replace it (nothing is replaced): one object
    // from ast-grep, where `range()`, the dearest call per node, builds three. Lines come from the
    // offsets, as tree-sitter counts them (a row per line feed).
    const { startPos: start, endPos: end } = node.replace('');
    const startLine = lineOf(lineStarts, start);
    const endLine = lineOf(lineStarts, end);
    if (hit) {
      // With one rule of its kind, the hit is that rule's.
      for (let index = 0; index < ofKind!.length; index++) {
        if (ofKind!.length === 1 || node.getMatch(ruleTags[index] ?? `R${index}`))
          ruleMatches.push({ rule: ofKind![index]!, startLine, endLine });
      }
    }
    if (!read) continue;
    if (kind === 'expression_statement' && spec.docstringRule) {
      lexical.masked.push({ start, end, endLine });
      lexical.spans.push({ start, end, replacement: '' });
      continue;
    }
    items.push({ node, kind, start, end, startLine, endLine });
  }
  return parseErrors;
}

/**
 * The walk over the items in document order: callables, decisions and cognitive roles, with a
 * stack of open callables and nesting structures.
 */
class Walk {
  readonly callables: PendingCallable[] = [];
  readonly candidates: CloneCandidate[] = [];
  fileCognitive = 0;
  private readonly scopes: { end: number; name: string }[] = [];
  private readonly open: Open[] = [];
  private readonly operators: OpenOperator[] = [];
  private fileTokens: FileTokens | undefined;
  private readonly countRadon: boolean;
  /** The node of the item being visited, read by `tagged`. */
  private current: SgNode | undefined;
  private readonly tagged = (tag: string) => this.current!.getMatch(tag) !== null;

  constructor(
    private readonly text: string,
    private readonly spec: LanguageSpec,
    private readonly kinds: Classifier,
    private readonly options: MetricsOptions,
    private readonly lexical: LexicalSpan[],
    private readonly prefix: Uint32Array,
  ) {
    this.countRadon = options.ccVariant === 'radon';
  }

  visit(item: Item): void {
    const { node, kind, start, end } = item;
    const { kinds, open, scopes, spec } = this;
    this.current = node;
    while (open.length && open[open.length - 1]!.end <= start) open.pop();
    while (scopes.length && scopes[scopes.length - 1]!.end <= start) scopes.pop();

    if (kinds.decisions.has(kind) || (this.countRadon && kinds.radon.has(kind))) this.addDecision(kind);

    let role = kinds.cognitive.has(kind) ? spec.cognitiveRole(kind, this.tagged) : undefined;
    if (role?.kind === 'logical' && this.continuesSequence(item)) role = continuedLogicalRole;
    if (role) {
      this.addCognitive(role, start);
      if (role.kind === 'structural' && role.withElse) this.addCognitive(hybridRole, start);
    }
    const name = kinds.callables.has(kind)
      ? spec.callableName(node, this.text, start, this.tagged)
      : undefined;
    if (name !== undefined) this.openCallable(item, name);
    else if (role && (role.kind === 'structural' || role.kind === 'nesting')) {
      open.push({ end, region: start + 1, callable: -1 });
    } else if (kinds.callables.has(kind)) {
      open.push({ end, region: start + 1, callable: -1 });
    } else if (kinds.scopes.has(kind)) {
      const scopeName = spec.scopeName ? spec.scopeName(node, this.text, start) : fieldText(node, 'name');
      if (scopeName) scopes.push({ end, name: scopeName });
    }

    if (kinds.clones.has(kind) && !spec.cloneExcluded?.(this.text, start)) this.addCandidate(item);
  }

  /**
   * Whether a boolean operator is an operand, continuing its sequence, of the nearest operator
   * around it. The items come in document order, so the operators around it are those still open.
   */
  private continuesSequence(item: Item): boolean {
    const { operators } = this;
    while (operators.length && operators[operators.length - 1]!.end <= item.start) operators.pop();
    const around = operators[operators.length - 1];
    const continues = around !== undefined && (item.start === around.left || item.start === around.right);
    const starts = this.tagged('SEQ') ? sequenceStarts(item.node) : noSequence;
    operators.push({ end: item.end, left: starts.left, right: starts.right });
    return continues;
  }

  private addDecision(kind: string): void {
    for (const { callable: index } of this.open) {
      if (index < 0) continue;
      const callable = this.callables[index]!;
      callable.cc++;
      callable.decisions.set(kind, (callable.decisions.get(kind) ?? 0) + 1);
    }
  }

  private openCallable(item: Item, name: string): void {
    const enclosing: number[] = [];
    for (const entry of this.open) if (entry.callable >= 0) enclosing.push(entry.callable);
    // Joined by a loop: spreading an array that is empty in one file and holds names in the
    // next sees two array maps at one site and deoptimizes the function.
    let qualified = '';
    for (const scope of this.scopes) qualified += `${scope.name}.`;
    this.callables.push({
      kind: item.kind,
      name,
      start: item.start,
      end: item.end,
      startLine: item.startLine,
      endLine: item.endLine,
      depth: enclosing.length,
      qualified: qualified + name,
      cc: 1,
      cognitive: 0,
      decisions: new Map(),
      ancestors: enclosing,
    });
    this.open.push({ end: item.end, region: item.start + 1, callable: this.callables.length - 1 });
    this.scopes.push({ end: item.end, name });
  }

  /**
   * Adds a cognitive increment to every enclosing callable, with the nesting level relative to
   * each; code outside every callable counts toward the file directly.
   */
  private addCognitive(role: CognitiveRole, at: number): void {
    let increment = 0;
    if (role.kind === 'structural' || role.kind === 'hybrid' || role.kind === 'jump') increment = 1;
    else if (role.kind === 'logical') increment = role.continues ? 0 : 1;
    if (!increment) return;
    let nesting = 0;
    let inCallable = false;
    const { open } = this;
    for (let i = open.length - 1; i >= 0; i--) {
      const entry = open[i]!;
      if (entry.callable >= 0) {
        inCallable = true;
        this.callables[entry.callable]!.cognitive += role.kind === 'structural' ? 1 + nesting : increment;
      }
      if (entry.region <= at) nesting++;
    }
    if (!inCallable) this.fileCognitive += role.kind === 'structural' ? 1 + nesting : increment;
  }

  private tokens(): FileTokens {
    this.fileTokens ??= new FileTokens(this.text, this.lexical, this.spec);
    return this.fileTokens;
  }

  private addCandidate(item: Item): void {
    if (countIn(this.prefix, item.startLine, item.endLine) < this.options.minCloneLines) return;
    this.candidates.push({
      hash: `${this.spec.family}:${this.tokens().hash(item.start, item.end)}`,
      startLine: item.startLine,
      endLine: item.endLine,
    });
  }

  /**
   * Recursion: +1 per call of a callable to itself, counted toward it and the callables around
   * it; then the file's cognitive complexity takes the top-level callables'. Returns the callables.
   */
  finish(): PendingCallable[] {
    const { callables } = this;
    for (const callable of callables) {
      const calls = this.tokens().callsOf(callable.name, callable.start, callable.end);
      if (!calls) continue;
      callable.cognitive += calls;
      for (const ancestor of callable.ancestors) callables[ancestor]!.cognitive += calls;
    }
    for (const callable of callables) if (callable.depth === 0) this.fileCognitive += callable.cognitive;
    return callables;
  }
}

function callableResults(
  path: string,
  spec: LanguageSpec,
  callables: readonly PendingCallable[],
  prefix: Uint32Array,
  options: MetricsOptions,
): CallableMetrics[] {
  return callables.map((callable) => {
    const { startLine, endLine } = callable;
    const sloc = countIn(prefix, startLine, endLine);
    return {
      file: path,
      language: spec.id,
      name: callable.name,
      qualifiedName: callable.qualified,
      kind: callable.kind,
      startLine: startLine + 1,
      endLine: endLine + 1,
      sloc,
      cc: callable.cc,
      cognitive: callable.cognitive,
      mass: massOf(callable.cc, sloc, options),
      decisions: Object.fromEntries(callable.decisions),
      depth: callable.depth,
    };
  });
}

/** The rule matches as findings, less those a suppression comment silences, and the lines they flag. */
function ruleHits(
  path: string,
  text: string,
  tokens: LexicalTokens,
  lineStarts: Int32Array,
  code: Uint8Array,
  ruleMatches: readonly RuleMatch[],
): { hits: RuleHit[]; flagged: Set<number>; suppressedHits: number } {
  const hits: RuleHit[] = [];
  const flagged = new Set<number>();
  let suppressedHits = 0;
  if (!ruleMatches.length) return { hits, flagged, suppressedHits };
  // The comments' text is read only here: most files have no finding to suppress.
  const comments: SuppressionComment[] = [];
  for (let i = 0; i < tokens.comments.length; i += 2) {
    const start = tokens.comments[i]!;
    comments.push({ text: text.slice(start, tokens.comments[i + 1]), line: lineOf(lineStarts, start) });
  }
  const suppressions = readSuppressions(comments, code);
  for (const match of ruleMatches) {
    if (isSuppressed(suppressions, match.startLine, match.rule.id)) {
      suppressedHits++;
      continue;
    }
    hits.push({
      file: path,
      rule: match.rule.id,
      category: match.rule.category,
      weight: match.rule.weight,
      message: match.rule.message,
      line: match.startLine + 1,
      endLine: match.endLine + 1,
    });
    for (let line = match.startLine; line <= match.endLine; line++) if (code[line]) flagged.add(line);
  }
  return { hits, flagged, suppressedHits };
}

function lineStartsOf(text: string): Int32Array {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  const starts = new Int32Array(lines);
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts[line++] = i + 1;
  return starts;
}

/** Zero-based line of an offset. */
function lineOf(starts: Int32Array, offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * Sorted spans without those inside another (a string in a comment, a docstring's string). Of two
 * spans with the same extent the dropped one comes first: a docstring is the same span as its
 * string, and it must not hash as `$STR`.
 */
function outermostSpans(spans: LexicalSpan[]): LexicalSpan[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end || a.replacement.length - b.replacement.length);
  const result: LexicalSpan[] = [];
  let reach = -1;
  for (const span of spans) {
    if (span.start < reach) continue;
    result.push(span);
    reach = span.end;
  }
  return result;
}

/** mass(f) = CC(f) × g(SLOC(f)), g by the size term option. */
export function massOf(cc: number, sloc: number, options: Pick<MetricsOptions, 'sizeTerm'>): number {
  switch (options.sizeTerm) {
    case 'none':
      return cc;
    case 'linear':
      return cc * sloc;
    default:
      return cc * Math.sqrt(sloc);
  }
}
