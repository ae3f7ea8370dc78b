import { z } from 'zod';

/** The manifest's format tag; a reader refuses other versions. */
export const datasetFormat = 'swe-steps-dataset/1';
export const manifestFile = 'dataset.json';
export const bundleFile = 'repository.bundle';

const definition = z.strictObject({
  file: z.string(),
  kind: z.enum(['function', 'class']),
  name: z.string(),
  declaration: z.string(),
  docstring: z.string().optional(),
});

const issue = z.strictObject({ number: z.number().int(), title: z.string(), body: z.string() });

export const categories = [
  'Feature/Enhancement',
  'Bug Fix',
  'Maintenance',
  'Infrastructure',
  'Documentation',
  'Testing',
] as const;

export const exclusionReasons = [
  'docs-only',
  'config-only',
  'no-test-change',
  'no-source-change',
  'patch-does-not-apply',
  'setup-failed',
  'timeout',
  'validation-error',
  'no-fail-to-pass',
] as const;
export type ExclusionReason = (typeof exclusionReasons)[number];

const sha = z.string().regex(/^[0-9a-f]{40}$/, 'expected a 40-digit commit id');

/** One pull request: the rows of the paper's Table 4, plus how mining judged it. */
export const prRecord = z.strictObject({
  commit_id: sha,
  parent_id: sha,
  pr_number: z.number().int().positive(),
  prs: z.strictObject({
    number: z.number().int(),
    title: z.string(),
    body: z.string(),
    style: z.enum(['squash', 'merge']),
    issues: z.array(issue),
  }),
  merged_at: z.string(),
  changed_files: z.array(z.string()),
  test_files: z.array(z.string()),
  /** The test files the PR leaves that the runner runs (absent in datasets of older versions: derived). */
  test_modules: z.array(z.string()).optional(),
  /** The other test files the PR leaves: fixtures, data, conftest, helpers. */
  support_files: z.array(z.string()).optional(),
  changes: z.strictObject({
    added: z.array(definition),
    modified: z.array(definition),
    deleted: z.array(definition),
  }),
  pass_to_pass: z.array(z.string()),
  fail_to_pass: z.array(z.string()),
  fix_patch: z.string(),
  test_patch: z.string(),
  all_texts: z.strictObject({
    title: z.string(),
    body: z.string(),
    issues: z.array(z.string()),
    docs: z.string(),
  }),
  category: z.enum(categories).optional(),
  classification: z
    .strictObject({
      model: z.string(),
      explanation: z.string(),
      confidence: z.string(),
      keywords: z.array(z.string()),
    })
    .optional(),
  status: z.enum(['validated', 'excluded']),
  excluded: z.strictObject({ reason: z.enum(exclusionReasons), detail: z.string() }).optional(),
  dropped_tests: z.array(z.strictObject({ id: z.string(), reason: z.string() })),
});
export type PrRecord = z.infer<typeof prRecord>;

export const chain = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only'),
  /** The commit the chain starts from: the first PR's parent. */
  base: sha,
  prs: z.array(z.number().int()).min(1),
});
export type Chain = z.infer<typeof chain>;

export const manifest = z.strictObject({
  format: z.literal(datasetFormat),
  repository: z.strictObject({
    name: z.string().min(1),
    source: z.string(),
    branch: z.string(),
    head: sha,
  }),
  window: z.strictObject({ since: z.string(), until: z.string() }),
  options: z.record(z.string(), z.unknown()),
  environment: z.strictObject({
    /** The image validation ran in; tasks run their sandbox and scorer in it. */
    image: z.string().optional(),
    /** Docker's id of that image when it was mined. */
    imageId: z.string().optional(),
    /** sha256 of the recipe it was built from (absent: an image given as it is). */
    recipeHash: z.string().optional(),
    /** The interpreter and pytest validation ran. */
    runtime: z.strictObject({ python: z.string(), pytest: z.string(), executable: z.string() }).optional(),
    setup: z.array(z.string()),
    toolchains: z.array(z.string()),
  }),
  tests: z.strictObject({
    command: z.array(z.string()).min(1),
    timeoutSeconds: z.number().positive(),
  }),
  stats: z.strictObject({
    commits: z.number(),
    prsSeen: z.number(),
    excluded: z.record(z.string(), z.number()),
    validated: z.number(),
    validatedNow: z.number(),
    fromCache: z.number(),
    testsDropped: z.number(),
    chains: z.number(),
    prsInChains: z.number(),
    wallSeconds: z.number(),
  }),
  prs: z.array(prRecord),
  chains: z.array(chain),
});
export type Manifest = z.infer<typeof manifest>;
