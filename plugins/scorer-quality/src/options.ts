import { z } from 'zod';

export const optionsSchema = z
  .object({
    ccThreshold: z
      .number()
      .int()
      .positive()
      .default(10)
      .describe(
        'Callables with cyclomatic complexity above this are high-complexity (erosion, high_cc_count)',
      ),
    sizeTerm: z
      .enum(['none', 'sqrt', 'linear'])
      .default('sqrt')
      .describe('Size term g of mass(f) = CC(f) × g(SLOC(f)); sqrt is the paper’s'),
    ccVariant: z
      .enum(['reference', 'radon'])
      .default('reference')
      .describe('Cyclomatic complexity as the reference tool counts it, or with radon’s `with` and `lambda`'),
    minCloneLines: z.number().int().positive().default(3).describe('Smallest clone candidate block, in SLOC'),
    cognitiveThreshold: z
      .number()
      .int()
      .positive()
      .default(15)
      .describe('Cognitive complexity above which a function adds technical debt (Sonar S3776)'),
    rules: z
      .boolean()
      .default(true)
      .describe('Run the slop rule pack (violation_rate and verbosity need it)'),
    disabledRules: z.array(z.string()).default([]).describe('Rule ids to leave out'),
    exclude: z
      .array(z.string())
      .default([])
      .describe('More paths to leave out, in .gitignore syntax (`!pattern` brings back a default exclusion)'),
    defaultExcludes: z
      .boolean()
      .default(true)
      .describe('Leave out virtualenvs, node_modules, build output, docs and generated code'),
    gitignore: z.boolean().default(true).describe('Respect the workspace’s .gitignore files'),
    languages: z
      .array(z.enum(['python', 'typescript', 'tsx', 'javascript', 'go']))
      .optional()
      .describe('Measure only these languages (default: all supported)'),
    details: z
      .boolean()
      .default(true)
      .describe('Write per-file, per-callable, finding and clone JSONL next to quality.json'),
  })
  .strict();

export type QualityOptions = z.output<typeof optionsSchema>;
