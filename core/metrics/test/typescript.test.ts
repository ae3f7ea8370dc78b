import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../src/index.js';

const program = `export function classify(n: number): string {
  if (n < 0 || n > 100) {
    return 'out';
  }
  switch (n) {
    case 1:
      return 'one';
    case 2:
      return 'two';
    default:
      return n > 50 ? 'big' : 'small';
  }
}

const helper = (xs: number[]) => xs.filter((x) => x ?? 0);

class Store {
  // comment
  get(key: string) {
    try {
      return this.map[key] && this.map[key].value;
    } catch (e) {
      return undefined;
    }
  }
}
`;

describe('TypeScript metrics', () => {
  const analysis = analyzeSource({ path: 'm.ts', text: program }, { rules: false });
  const byName = new Map(analysis.callables.map((callable) => [callable.qualifiedName, callable]));

  it('counts logical lines without blanks and comments', () => {
    expect(analysis.metrics.loc).toBe(23);
  });

  it('counts functions, methods and arrow functions bound to names, not anonymous callbacks', () => {
    expect([...byName.keys()]).toEqual(['classify', 'helper', 'Store.get']);
  });

  it('computes SLOC and cyclomatic complexity', () => {
    // if, ||, case 1, case 2, ternary (default is not a decision)
    expect(byName.get('classify')).toMatchObject({ sloc: 13, cc: 6 });
    // The anonymous callback's ?? counts toward the function it is in.
    expect(byName.get('helper')).toMatchObject({ sloc: 1, cc: 2 });
    expect(byName.get('Store.get')).toMatchObject({ sloc: 7, cc: 3 });
  });

  it('computes cognitive complexity', () => {
    // if +1, || +1, switch +1, ternary inside the switch +2
    expect(byName.get('classify')?.cognitive).toBe(5);
    expect(byName.get('helper')?.cognitive).toBe(1);
    // && +1, catch +1
    expect(byName.get('Store.get')?.cognitive).toBe(2);
    expect(analysis.metrics.cognitive).toBe(8);
  });

  it('parses JavaScript and TSX with the same definitions', () => {
    const js = analyzeSource({
      path: 'a.js',
      text: 'module.exports.run = function (a) {\n  return a || b;\n};\n',
    });
    expect(js.callables.map((callable) => [callable.name, callable.cc])).toEqual([['run', 2]]);
    const tsx = analyzeSource({
      path: 'a.tsx',
      text: 'export const View = ({ on }: { on: boolean }) => (\n  <div>{on ? <b>on</b> : null}</div>\n);\n',
    });
    expect(tsx.callables.map((callable) => [callable.name, callable.cc, callable.sloc])).toEqual([
      ['View', 2, 3],
    ]);
  });
});

describe('every supported extension', () => {
  it('measures files whatever extension of their language they have', async () => {
    const { analyzeProject } = await import('../src/index.js');
    const py = 'def f(x):\n    return x or 1\n';
    const js = 'export function f(x) {\n  return x || 1;\n}\n';
    const files = [
      ['a.py', py],
      ['b.pyw', py],
      ['c.js', js],
      ['d.mjs', js],
      ['e.cjs', js],
      ['f.jsx', js],
      ['g.ts', js],
      ['h.mts', js],
      ['i.cts', js],
      ['j.tsx', js],
    ].map(([path, text]) => ({ path: path!, text: text! }));
    const report = await analyzeProject(files, { rules: false });
    expect(report.files.map((file) => [file.path, file.callables, file.maxCc])).toEqual(
      files.map((file) => [file.path, 1, 2]),
    );
  });
});
