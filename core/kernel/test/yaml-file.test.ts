import { ConfigError, formatIssue, parseYaml } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

describe('parseYaml', () => {
  const text = 'name: demo\nharness:\n  - id: oracle\n  - id: claud-code\n    options:\n      model: x\n';
  it('locates a key path to its line and column', () => {
    const file = parseYaml(text, 'exp.yaml');
    expect(file.locate(['harness', 1, 'id'])).toEqual({ line: 4, column: 5 });
    expect(file.locate(['harness', 1, 'options', 'model'])).toEqual({ line: 6, column: 7 });
  });
  it('formats an issue with file:line:column, key and suggestion', () => {
    const issue = parseYaml(text, 'exp.yaml').issue(
      ['harness', 1, 'id'],
      "unknown harness 'claud-code'",
      'claude-code',
    );
    expect(formatIssue(issue)).toBe(
      "exp.yaml:4:5: harness[1].id: unknown harness 'claud-code' (did you mean 'claude-code'?)",
    );
  });
  it('reports a YAML syntax error with its position', () => {
    expect(() => parseYaml('a: [1, 2\nb: 3\n', 'bad.yaml')).toThrow(ConfigError);
    const error = (() => {
      try {
        parseYaml('a: 1\na: 2\n', 'dup.yaml');
      } catch (caught) {
        return caught as ConfigError;
      }
    })();
    expect(error?.issues[0]).toMatchObject({ file: 'dup.yaml', line: 2 });
  });
});
