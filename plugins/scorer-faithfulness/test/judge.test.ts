import { describeScorer } from '@longhaul/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { FaithfulnessScorer } from '../src/faithfulness-scorer.js';
import { faithfulnessOptions } from '../src/options.js';
import { judgeGateway, repository, stepContext } from './fixtures.js';

const verdict = (score: number, path = 'limiter/bucket.py') =>
  JSON.stringify({ score, evidence: [{ path, lines: '1-6' }], rationale: `level ${score}` });

// The judge greps for the bucket, reads what it found, then answers; the audit log is absent.
const replies = [
  { when: 'Component token-bucket', toolCalls: [{ name: 'grep', input: { pattern: 'class TokenBucket' } }] },
  {
    when: 'limiter/bucket.py:1: class TokenBucket',
    toolCalls: [{ name: 'read_file', input: { path: 'limiter/bucket.py', start: 1, end: 6 } }],
  },
  { when: '5:     def refill(self, now):', text: verdict(2) },
  { when: 'Component audit-log', toolCalls: [{ name: 'grep', input: { pattern: 'audit' } }] },
  { when: 'No matches', text: verdict(0, '') },
];

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0)) await dispose();
});

async function scorer(options: Record<string, unknown> = {}, judgeReplies: unknown[] = replies) {
  const { gateway, dispose } = await judgeGateway(judgeReplies);
  cleanup.push(dispose);
  return new FaithfulnessScorer(faithfulnessOptions.parse(options), () => gateway);
}

describe('faithfulness judge through the gateway', () => {
  it('scores each component from what its tool calls find, with DIR and IF50 from the repository', async () => {
    const scores = await (await scorer()).score(await stepContext(repository));
    const value = Object.fromEntries(scores.map((score) => [score.metric, score.value]));
    expect(value).toMatchObject({ mcf: 1, fully_faithful: 0, severe: 1, components: 2, judged: 2 });
    // TokenBucket is imported by main.py, unused_helper nowhere: 1 of 2 exported symbols reused.
    expect(value.dir).toBe(0.5);
    expect(value.if50).toBeCloseTo(0.5 * (1 / 4) + 0.5 * 0.5);
    const verdicts = (scores.find((score) => score.metric === 'mcf')!.detail as { verdicts: unknown[] })
      .verdicts;
    expect(verdicts).toEqual([
      expect.objectContaining({ component: 'token-bucket', score: 2, label: 'Simplified', toolCalls: 2 }),
      expect.objectContaining({ component: 'audit-log', score: 0, label: 'Absent', toolCalls: 1 }),
    ]);
  });

  // NOTES.md mentions the audit log: were it visible, grep 'audit' would match and the scripted
  // judge (which answers 'No matches' only) would run out of replies.
  it('never shows the judge the memory files', async () => {
    const scores = await (await scorer()).score(await stepContext(repository));
    expect(scores.find((score) => score.metric === 'judged')!.value).toBe(2);
  });

  it('stops offering tools after the budget and still gets a verdict', async () => {
    // Five calls in one step: three run, two are refused; the next step offers no tools.
    const greedy = [
      { toolCalls: Array.from({ length: 5 }, () => ({ name: 'list_files', input: { path: '' } })) },
      { when: 'Tool budget of 3 calls is used up', text: verdict(3) },
    ];
    const judge = await scorer({ maxToolCalls: 3 }, greedy);
    const scores = await judge.score(
      await stepContext(repository, { components: [{ id: 'x', description: 'x' }] }),
    );
    const verdicts = (
      scores.find((score) => score.metric === 'mcf')!.detail as { verdicts: { toolCalls: number }[] }
    ).verdicts;
    expect(verdicts[0]).toMatchObject({ toolCalls: 3, score: 3 });
  });

  it('judges only the final step by default, and nothing for a task without components', async () => {
    const judge = await scorer();
    expect(await judge.score(await stepContext(repository, {}, 0))).toEqual([]);
    expect(await judge.score(await stepContext(repository, { components: [] }))).toEqual([]);
  });

  it('fails with a clear message when no gateway runs', async () => {
    const judge = new FaithfulnessScorer(faithfulnessOptions.parse({}), () => undefined);
    await expect(judge.score(await stepContext(repository))).rejects.toThrow(
      /no model gateway runs.*'judge'/,
    );
  });
});

describeScorer(
  'faithfulness',
  async () => {
    const { gateway, dispose } = await judgeGateway(replies);
    return {
      scorer: new FaithfulnessScorer(faithfulnessOptions.parse({}), () => gateway),
      context: await stepContext(repository),
      dispose,
    };
  },
  { metrics: ['mcf', 'dir', 'if50', 'fully_faithful', 'severe'] },
);
