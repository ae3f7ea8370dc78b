import { describe, expect, it } from 'vitest';
import { analyzeProject } from '../src/index.js';

/** The clone ratio of two files, each holding one block. */
async function cloneRatio(a: string, b: string): Promise<number | null> {
  const report = await analyzeProject(
    [
      { path: 'a.py', text: a },
      { path: 'b.py', text: b },
    ],
    { rules: false },
  );
  return report.summary.clone_ratio;
}

const match = `def match(command):
    return (command.script.startswith("git")
            and "usage:" in command.output
            and command.stderr != "")
`;

describe('clone hashing: docstrings', () => {
  it('finds a function with a docstring and the same function without it as clones', async () => {
    const documented = match.replace('):\n', '):\n    """Match function copied from a.py"""\n');
    expect(await cloneRatio(match, documented)).toBe(1);
    const prefixed = match.replace('):\n', "):\n    r'''Raw docstring.'''\n");
    expect(await cloneRatio(match, prefixed)).toBe(1);
  });

  it('hashes a leading f-string statement, which is not a docstring', async () => {
    const fstring = match.replace('):\n', '):\n    f"""Not a docstring {command}"""\n');
    expect(await cloneRatio(match, fstring)).toBe(0);
  });
});

describe('clone hashing: layout', () => {
  const oneLine = `def total(items):
    result = compute(items, scale=2, offset=1)
    return result
`;
  it('ignores line breaks and indentation inside brackets and after a backslash', async () => {
    const wrapped = `def total(items):
    result = compute(
        items, scale=2,
        offset=1)
    return result
`;
    const continued = `def total(items):
    result = \\
        compute(items, scale=2, offset=1)
    return result
`;
    expect(await cloneRatio(oneLine, wrapped)).toBe(1);
    expect(await cloneRatio(oneLine, continued)).toBe(1);
  });

  it('reads an implicitly concatenated string as one literal however it is split', async () => {
    const split = (literal: string) => `def greet(name):
    message = (${literal})
    return message + name
`;
    const one = split('"hello there, "');
    expect(await cloneRatio(one, split('"hello " "there, "'))).toBe(1);
    expect(await cloneRatio(one, split('"hello"\n               " there, "'))).toBe(1);
  });

  it('reads an f-string as one literal when it holds strings in its own quotes (Python 3.12)', async () => {
    const describe = (literal: string) => `def describe(rows):
    names = [row.name for row in rows]
    return ${literal}
`;
    const before312 = describe(`f"{', '.join(names)} ({len(names)} of {rows!r:>{10}})"`);
    const since312 = describe(`f"{", ".join(names)} ({len(names)} of {rows!r:>{10}})"`);
    const multiline = describe(
      `f"{\n        ", ".join(names)  # one per row\n    } ({len(names)} of {rows!r:>{10}})"`,
    );
    expect(await cloneRatio(before312, since312)).toBe(1);
    expect(await cloneRatio(before312, multiline)).toBe(1);
    // The quote inside the braces does not end the literal, nor does a # there start a comment.
    const hashed = describe(`f"{names["#"]}" + str(len(rows))`);
    expect(await cloneRatio(hashed, describe(`f"{names['#']}" + str(len(rows))`))).toBe(1);
    expect(await cloneRatio(hashed, describe(`f"{names['#']}" + str(len(names))`))).toBe(0);
  });

  it('keeps the statement structure: moving a statement out of its block is not layout', async () => {
    const inside = `def check(items):
    for item in items:
        validate(item)
        record(item)
`;
    const after = `def check(items):
    for item in items:
        validate(item)
    record(item)
`;
    expect(await cloneRatio(inside, after)).toBe(0);
  });

  it('keeps the tokens: an extra argument or a split call is a different block', async () => {
    const extra = oneLine.replace('offset=1)', 'offset=1, strict=True)');
    expect(await cloneRatio(oneLine, extra)).toBe(0);
    const twoCalls = `def total(items):
    result = compute(items, scale=2)(offset=1)
    return result
`;
    expect(await cloneRatio(oneLine, twoCalls)).toBe(0);
  });

  it('ignores layout in TypeScript blocks', async () => {
    const report = await analyzeProject(
      [
        {
          path: 'a.ts',
          text: 'function total(items: number[]) {\n  const sum = add(items, 2, 1);\n  return sum;\n}\n',
        },
        {
          path: 'b.ts',
          text: 'function total(items: number[]) {\n  const sum = add(\n    items,\n    2,\n    1);\n  return sum;\n}\n',
        },
      ],
      { rules: false },
    );
    expect(report.summary.clone_ratio).toBe(1);
  });
});

describe('clone hashing: type-checking imports', () => {
  const block = (condition: string) => `${condition}:
    from collections import OrderedDict
    from typing import Any
    from os import PathLike
`;
  it('does not count an `if TYPE_CHECKING:` block of imports as a clone', async () => {
    expect(await cloneRatio(block('if TYPE_CHECKING'), block('if TYPE_CHECKING'))).toBe(0);
    expect(await cloneRatio(block('if typing.TYPE_CHECKING'), block('if  typing.TYPE_CHECKING'))).toBe(0);
  });

  it('counts the same block under another condition', async () => {
    expect(await cloneRatio(block('if DEBUG'), block('if DEBUG'))).toBe(1);
  });
});

describe('clone hashing: files with many names', () => {
  // A file's words are kept in a table keyed by a hash of their characters, which grows as new
  // words come: 1,500 names make it grow several times before the block is read.
  const block = `def convert(value):
    result = value * 2
    return result
`;
  const manyNames = Array.from({ length: 1500 }, (_, index) => `name_${index} = ${index}\n`).join('');

  it('finds a block after many other names as a clone of the same block alone', async () => {
    expect(await cloneRatio(block, `${manyNames}${block}`)).toBeGreaterThan(0);
  });

  it('tells apart two names that differ in their last character only', async () => {
    const other = block.replace('value * 2', 'valuf * 2');
    expect(await cloneRatio(`${manyNames}${block}`, `${manyNames}${other}`)).toBe(0);
  });
});
