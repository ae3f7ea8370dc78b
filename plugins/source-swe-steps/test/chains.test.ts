import { describe, expect, it } from 'vitest';
import { buildChains, type ChainInput } from '../src/index.js';

let n = 0;
const sha = () => (n++).toString(16).padStart(40, '0');
function pr(number: number, validated = true, reason?: ChainInput['reason']): ChainInput {
  const docsOrConfigOnly = reason === 'docs-only' || reason === 'config-only';
  return { commit: sha(), parent: sha(), pr: number, validated, reason, docsOrConfigOnly };
}
const direct = (docsOrConfigOnly = false): ChainInput => ({
  commit: sha(),
  parent: sha(),
  validated: false,
  docsOrConfigOnly,
});
const lengths = { minLength: 3, maxLength: 11 };

describe('chains', () => {
  it('folds docs-only and config-only PRs into the run; other commits cut it', () => {
    const history = [
      pr(1),
      pr(2),
      pr(3, false, 'docs-only'),
      pr(4),
      pr(5, false, 'config-only'),
      pr(6),
      pr(9, false, 'no-test-change'),
      pr(10),
      pr(11),
      pr(12),
      direct(),
      pr(15),
      pr(16),
      pr(17),
      pr(18, false, 'no-fail-to-pass'),
    ];
    const { chains, orphans } = buildChains(history, lengths);
    expect(chains.map((chain) => [chain.id, chain.prs])).toEqual([
      ['pr1-pr6', [1, 2, 4, 6]],
      ['pr10-pr12', [10, 11, 12]],
      ['pr15-pr17', [15, 16, 17]],
    ]);
    expect(chains[0]!.base).toBe(history[0]!.parent);
    expect(orphans).toEqual([]);
  });

  it('folds direct docs/config commits by default, direct code commits with fold direct, anything with fold all', () => {
    const history = [
      pr(1),
      direct(true),
      pr(2),
      direct(),
      pr(3),
      pr(4, false, 'no-test-change'),
      pr(5),
      pr(6),
    ];
    const ids = (fold: 'docs-config' | 'direct' | 'all') =>
      buildChains(history, { minLength: 2, maxLength: 11, fold }).chains.map((chain) => chain.prs);
    expect(ids('docs-config')).toEqual([
      [1, 2],
      [5, 6],
    ]);
    expect(ids('direct')).toEqual([
      [1, 2, 3],
      [5, 6],
    ]);
    expect(ids('all')).toEqual([[1, 2, 3, 5, 6]]);
  });

  it('drops runs shorter than the minimum and splits long runs evenly', () => {
    const short = buildChains(
      [pr(1), pr(2), direct(), ...Array.from({ length: 12 }, (_, i) => pr(20 + i))],
      lengths,
    );
    expect(short.orphans).toEqual([1, 2]);
    expect(short.chains.map((chain) => chain.prs.length)).toEqual([6, 6]);
    expect(short.chains[1]!.prs[0]).toBe(26);
    const exact = buildChains(
      Array.from({ length: 23 }, (_, i) => pr(i + 1)),
      lengths,
    );
    expect(exact.chains.map((chain) => chain.prs.length)).toEqual([8, 8, 7]);
    const tight = buildChains(
      Array.from({ length: 5 }, (_, i) => pr(i + 1)),
      { minLength: 3, maxLength: 4 },
    );
    expect(tight.chains.map((chain) => chain.prs)).toEqual([[1, 2, 3]]);
    expect(tight.orphans).toEqual([4, 5]);
  });
});
