import { describe, expect, it } from 'vitest';
import { classifier, defaultPathRules } from '../src/index.js';

describe('path rules', () => {
  const kind = classifier(defaultPathRules);

  it('sorts files into test, config, docs and source, tests first', () => {
    expect(kind('tests/test_money.py')).toBe('test');
    expect(kind('ledger/tests/helpers.py')).toBe('test');
    expect(kind('ledger/test_unit.py')).toBe('test');
    expect(kind('conftest.py')).toBe('test');
    expect(kind('src/app.test.ts')).toBe('test');
    expect(kind('tests/README.md')).toBe('test');
    expect(kind('.github/workflows/tests.yml')).toBe('config');
    expect(kind('pyproject.toml')).toBe('config');
    expect(kind('requirements-dev.txt')).toBe('config');
    expect(kind('setup.py')).toBe('config');
    expect(kind('README.md')).toBe('docs');
    expect(kind('docs/conf.py')).toBe('docs');
    expect(kind('CHANGELOG')).toBe('docs');
    expect(kind('ledger/money.py')).toBe('source');
    expect(kind('ledger/data/rates.json')).toBe('source');
  });

  it('takes rules of its own', () => {
    const custom = classifier({ tests: ['spec/**'], config: [], docs: ['**/*.md'] });
    expect(custom('spec/money_spec.rb')).toBe('test');
    expect(custom('tests/test_money.py')).toBe('source');
    expect(custom('.github/workflows/ci.yml')).toBe('source');
  });
});
