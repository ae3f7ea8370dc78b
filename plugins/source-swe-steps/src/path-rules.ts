import picomatch from 'picomatch';

/** What a changed file is, by its repository-relative path. */
export type FileKind = 'test' | 'docs' | 'config' | 'source';

export interface PathRules {
  /** Globs of test files (checked first). */
  tests: string[];
  /** Globs of build, CI and configuration files (checked second). */
  config: string[];
  /** Globs of documentation (checked third); everything else is source. */
  docs: string[];
}

export const defaultPathRules: PathRules = {
  tests: [
    '**/tests/**',
    '**/test/**',
    '**/testing/**',
    '**/__tests__/**',
    '**/test_*.py',
    '**/*_test.py',
    '**/conftest.py',
    '**/*.{test,spec}.{js,jsx,ts,tsx,mjs,cjs}',
  ],
  config: [
    '.github/**',
    '.gitlab-ci.yml',
    '.circleci/**',
    '.travis.yml',
    'azure-pipelines.yml',
    '**/.*rc',
    '**/.gitignore',
    '**/.gitattributes',
    '.editorconfig',
    '.pre-commit-config.yaml',
    '.readthedocs.{yml,yaml}',
    '*.{cfg,ini,toml,yml,yaml,json,lock}',
    '**/requirements*.txt',
    'MANIFEST.in',
    'setup.py',
    'Makefile',
    'Dockerfile',
    'tox.ini',
    'noxfile.py',
  ],
  docs: [
    'docs/**',
    'doc/**',
    '**/*.{md,rst,txt,adoc}',
    'LICENSE*',
    'AUTHORS*',
    'CHANGELOG*',
    'CHANGES*',
    'HISTORY*',
    'NEWS*',
  ],
};

export type Classifier = (path: string) => FileKind;

export function classifier(rules: PathRules): Classifier {
  const options = { dot: true };
  const kinds: [FileKind, (path: string) => boolean][] = [
    ['test', picomatch(rules.tests, options)],
    ['config', picomatch(rules.config, options)],
    ['docs', picomatch(rules.docs, options)],
  ];
  return (path) => kinds.find(([, matches]) => matches(path))?.[0] ?? 'source';
}

/**
 * A runnable test module by pytest's default names (`test_*.py`, `*_test.py`): passed to the
 * runner. Every other test file (fixtures, data, conftest, helpers) is a support file: hidden and
 * restored with the modules, never an argument (pytest refuses a run naming a `.sql` file).
 */
export const isTestModule = (path: string) => /(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(path);
