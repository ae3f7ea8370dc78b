import type { LanguageId } from './languages/types.js';

/** One callable (see README: what counts as a callable). Lines are 1-based. */
export interface CallableMetrics {
  file: string;
  language: LanguageId;
  name: string;
  /** Enclosing classes and callables joined with dots, e.g. `Parser.parse.helper`. */
  qualifiedName: string;
  kind: string;
  startLine: number;
  endLine: number;
  sloc: number;
  /** Cyclomatic complexity: 1 + decision points, nested callables' included. */
  cc: number;
  /** Cognitive complexity (SonarSource), nested callables' included. */
  cognitive: number;
  mass: number;
  /** Decision points by node kind, for comparing CC definitions. */
  decisions: Record<string, number>;
  /** Depth among callables: 0 for a top-level function or a method. */
  depth: number;
}

export interface RuleHit {
  file: string;
  rule: string;
  category: string;
  weight: number;
  message: string;
  /** 1-based. */
  line: number;
  endLine: number;
}

export interface FileMetrics {
  path: string;
  language: LanguageId;
  /** Logical lines of code. */
  loc: number;
  /** Physical lines. */
  lines: number;
  callables: number;
  maxCc: number;
  /** Cognitive complexity of the whole file (module-level code included). */
  cognitive: number;
  ruleHits: number;
  suppressedHits: number;
  flaggedLines: number;
  cloneLines: number;
  /** |flagged ∪ clone lines|. */
  verboseLines: number;
  /** Set when the file could not be parsed cleanly (tree-sitter ERROR nodes); metrics are still given. */
  parseErrors: number;
}
