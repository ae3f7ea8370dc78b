import { describe, expect, it } from 'vitest';
import { checkOutput, splitCommand } from '../src/index.js';

describe('checkOutput', () => {
  it('compares exact text byte for byte unless normalizers say otherwise', () => {
    expect(checkOutput('stdout', { text: 'a\n' }, 'a\n').passed).toBe(true);
    expect(checkOutput('stdout', { text: 'a\n' }, 'a').passed).toBe(false);
    expect(checkOutput('stdout', { text: 'a', normalize: ['trim'] }, '\na  \n\n').passed).toBe(true);
    expect(
      checkOutput('stdout', { text: 'x 1\ny 2', normalize: ['whitespace'] }, '  x    1\n\ny\t2  \n').passed,
    ).toBe(true);
    expect(checkOutput('stdout', { text: 'a\nb\n', normalize: ['sortLines'] }, 'b\na\n').passed).toBe(true);
    expect(checkOutput('stdout', { text: 'ok', normalize: ['lowercase'] }, 'OK').passed).toBe(true);
  });

  it('reports a text mismatch with a unified diff', () => {
    const check = checkOutput('stdout', { text: 'one\ntwo\n' }, 'one\nthree\n');
    expect(check).toMatchObject({ passed: false, summary: 'text differs' });
    expect(check.diff).toContain('-two');
    expect(check.diff).toContain('+three');
  });

  it('compares JSON as data: key order is irrelevant, numbers within tolerance', () => {
    expect(checkOutput('stdout', { json: { a: 1, b: [1, 2] } }, '{"b": [1, 2], "a": 1}').passed).toBe(true);
    expect(
      checkOutput('stdout', { json: { a: 0.3 }, tolerance: 1e-9 }, '{"a": 0.30000000000000004}').passed,
    ).toBe(true);
    expect(checkOutput('stdout', { json: { a: 0.3 } }, '{"a": 0.31}').reason).toBe(
      '$.a: expected 0.3, got 0.31',
    );
    expect(checkOutput('stdout', { json: { a: 1 } }, '{"a": 1, "b": 2}').reason).toBe(
      '$: unexpected key "b"',
    );
    expect(checkOutput('stdout', { json: [1, 2] }, '[2, 1]').passed).toBe(false);
    expect(checkOutput('stdout', { json: null }, 'null').passed).toBe(true);
    expect(checkOutput('stdout', { json: {} }, 'not json').summary).toBe('not valid JSON');
  });

  it('compares JSON lines in order, or as a set with sortLines', () => {
    const lines = '{"n": 2}\n\n{"n": 1}\n';
    expect(checkOutput('stdout', { jsonl: [{ n: 2 }, { n: 1 }] }, lines).passed).toBe(true);
    expect(checkOutput('stdout', { jsonl: [{ n: 1 }, { n: 2 }] }, lines).passed).toBe(false);
    expect(
      checkOutput('stdout', { jsonl: [{ n: 1 }, { n: 2 }], normalize: ['sortLines'] }, lines).passed,
    ).toBe(true);
    expect(checkOutput('stdout', { jsonl: [{ n: 1 }] }, lines).reason).toBe('expected 1 lines, got 2');
    expect(checkOutput('stdout', { jsonl: [] }, '{"n":\n').reason).toBe('line 1 is not valid JSON');
  });

  it('matches a regular expression anywhere in the normalized output', () => {
    expect(checkOutput('stderr', { regex: 'line \\d+' }, 'error: bad value on line 3\n').passed).toBe(true);
    expect(checkOutput('stderr', { regex: '^error' }, 'warning\n').passed).toBe(false);
  });
});

describe('splitCommand', () => {
  it('splits like a shell, honouring quotes and backslashes', () => {
    expect(splitCommand('python3 main.py')).toEqual(['python3', 'main.py']);
    expect(splitCommand(`node "my dir/cli.js" --x 'a b' c\\ d ""`)).toEqual([
      'node',
      'my dir/cli.js',
      '--x',
      'a b',
      'c d',
      '',
    ]);
    expect(() => splitCommand('python3 "main.py')).toThrow(/unclosed/);
  });
});
