/** Which cyclomatic-complexity definition to use (see README: cyclomatic complexity). */
export type CcVariant = 'reference' | 'radon';

/** The size term g of mass(f) = CC(f) × g(SLOC(f)). */
export type SizeTerm = 'none' | 'sqrt' | 'linear';

export interface MetricsOptions {
  /** Callables with CC above this are high-complexity (erosion, high_cc_count). Default 10. */
  ccThreshold: number;
  /** Default `sqrt` (the paper's Eq. 2). */
  sizeTerm: SizeTerm;
  /** `reference` follows the reference tool (scb-check); `radon` adds `with` and `lambda`. */
  ccVariant: CcVariant;
  /** Smallest clone candidate, in SLOC. Default 3. */
  minCloneLines: number;
  /** Cognitive complexity above which a callable adds technical debt (Sonar S3776). Default 15. */
  cognitiveThreshold: number;
  /** Run the slop rule pack. Default true. */
  rules: boolean;
  /** Rule ids to leave out. */
  disabledRules: readonly string[];
  /** Run only these rule ids (all when unset). */
  onlyRules?: readonly string[];
  /** Worker threads that analyze files side by side (each with its own share of the files). Default 1. */
  threads: number;
}

export const defaultOptions: MetricsOptions = {
  ccThreshold: 10,
  sizeTerm: 'sqrt',
  ccVariant: 'reference',
  minCloneLines: 3,
  cognitiveThreshold: 15,
  rules: true,
  disabledRules: [],
  threads: 1,
};

export function resolveOptions(options: Partial<MetricsOptions> = {}): MetricsOptions {
  const resolved = { ...defaultOptions };
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) (resolved as Record<string, unknown>)[key] = value;
  }
  return resolved;
}
