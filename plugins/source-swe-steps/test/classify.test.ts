import { type Gateway, openTestGateway, scriptedModel } from '@longhaul/testkit/gateway';
import { describe, expect, it } from 'vitest';
import { classifierPrompt, classifyPr } from '../src/index.js';

const pr = {
  commit_id: 'c'.repeat(40),
  changed_files: ['ledger/money.py', 'tests/test_money.py'],
  all_texts: {
    title: 'Accept amounts with a currency sign',
    body: 'parse_amount reads "$4.20".',
    issues: ['#21 parse_amount rejects "$4.20"'],
    docs: '',
  },
};

async function withModel(replies: unknown[], work: (gateway: Gateway) => Promise<void>) {
  const { gateway, dispose } = await openTestGateway({ sorter: scriptedModel(replies) });
  try {
    await work(gateway);
  } finally {
    await dispose();
  }
}

describe('PR category through the gateway', () => {
  it('asks with the PR texts and the six kinds, and records the category with its reasons', async () => {
    const prompt = classifierPrompt(pr);
    expect(prompt).toContain('Title: Accept amounts with a currency sign');
    expect(prompt).toContain('#21 parse_amount rejects');
    for (const kind of [
      'Feature/Enhancement',
      'Bug Fix',
      'Maintenance',
      'Infrastructure',
      'Documentation',
      'Testing',
    ])
      expect(prompt).toContain(`- ${kind}:`);
    const reply =
      'Here it is: {"category": "bug fix", "explanation": "It resolves issue 21.", "confidence": "High", "keywords": ["rejects"]}';
    await withModel([{ when: 'Accept amounts with a currency sign', text: reply }], async (gateway) => {
      expect(await classifyPr(gateway, 'sorter', pr)).toEqual({
        category: 'Bug Fix',
        classification: {
          model: 'sorter',
          explanation: 'It resolves issue 21.',
          confidence: 'High',
          keywords: ['rejects'],
        },
      });
    });
  });

  it('a reply naming no known category records none and says why', async () => {
    await withModel([{ text: '{"category": "Chore"}' }, { text: 'no idea' }], async (gateway) => {
      expect(await classifyPr(gateway, 'sorter', pr)).toEqual({
        problem: 'the reply names no known category: Chore',
      });
      expect((await classifyPr(gateway, 'sorter', pr)).problem).toBe(
        'the reply names no known category: undefined',
      );
    });
  });
});
