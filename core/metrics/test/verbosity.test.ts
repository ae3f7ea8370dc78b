import { describe, expect, it } from 'vitest';
import { analyzeProject } from '../src/index.js';

const loaders = `def load_users(path):
    with open(path) as handle:
        rows = handle.read().splitlines()
    return [row.strip() for row in rows if row]


def load_groups(source):
    # same shape, other names
    with open(source) as stream:
        lines = stream.read().splitlines()
    return [line.strip() for line in lines if line]


def other(a):
    return a
`;

const ladder = `def positive(x):
    if x > 0:
        return True
    else:
        return False
`;

const only = { onlyRules: ['py-return-bool-ladder'] };

describe('clones and verbosity', () => {
  it('groups blocks equal up to names and literals, and counts their lines', async () => {
    const report = await analyzeProject([{ path: 'a.py', text: loaders }], { rules: false });
    expect(report.clones).toEqual([
      [
        { file: 'a.py', startLine: 1, endLine: 4 },
        { file: 'a.py', startLine: 7, endLine: 11 },
      ],
    ]);
    expect(report.summary.loc).toBe(10);
    expect(report.summary.clone_lines).toBe(8);
    expect(report.summary.clone_ratio).toBeCloseTo(0.8, 10);
    // Verbosity also counts the lines the rule pack flags: without the pack it is not measured.
    expect(report.summary.verbosity).toBeNull();
  });

  it('does not group blocks that differ in structure', async () => {
    const changed = loaders.replace('if line]', 'if line and line[0]]');
    expect((await analyzeProject([{ path: 'a.py', text: changed }], { rules: false })).clones).toEqual([]);
  });

  it('unites flagged lines and clone lines over LOC', async () => {
    const report = await analyzeProject(
      [
        { path: 'a.py', text: loaders },
        { path: 'b.py', text: ladder },
      ],
      only,
    );
    expect(report.summary.loc).toBe(15);
    expect(report.summary.rule_hits).toBe(1);
    expect(report.summary.flagged_lines).toBe(4);
    expect(report.summary.violation_rate).toBeCloseTo(1 / 15, 10);
    expect(report.summary.verbosity).toBeCloseTo(12 / 15, 10);
  });

  it('counts a line flagged twice once', async () => {
    const both = `${ladder}\n\n${ladder.replace('positive', 'negative')}`;
    const report = await analyzeProject([{ path: 'b.py', text: both }], only);
    expect(report.summary.loc).toBe(10);
    expect(report.summary.clone_lines).toBe(10);
    expect(report.summary.flagged_lines).toBe(8);
    expect(report.summary.verbosity).toBe(1);
  });

  it('honours suppression comments', async () => {
    const suppressed = ladder.replace('    if x', '    # slop-ignore[py-return-bool-ladder]\n    if x');
    const report = await analyzeProject([{ path: 'b.py', text: suppressed }], only);
    expect(report.summary.rule_hits).toBe(0);
    expect(report.files[0]?.suppressedHits).toBe(1);
    const other = await analyzeProject(
      [{ path: 'b.py', text: ladder.replace('    if x', '    # slop-ignore[x]\n    if x') }],
      only,
    );
    expect(other.summary.rule_hits).toBe(1);
    const file = await analyzeProject([{ path: 'b.py', text: `# slop-ignore-file\n${ladder}` }], only);
    expect(file.summary.rule_hits).toBe(0);
  });

  it('reports churn against a previous snapshot', async () => {
    const before = [{ path: 'b.py', text: ladder }];
    const after = [
      { path: 'b.py', text: ladder.replace('> 0', '>= 0') },
      { path: 'c.py', text: 'x = 1\n\ny = 2\n' },
    ];
    const report = await analyzeProject(after, { rules: false }, before);
    expect(report.summary).toMatchObject({ lines_added: 3, lines_removed: 1, loc: 7 });
    expect(report.summary.churn_ratio).toBeCloseTo(4 / 5, 10);
    expect(report.summary.delta_loc).toBeCloseTo(2 / 5, 10);
  });
});
