import type { Script } from '@longhaul/core';
import { describeScript, instantiatePlugin, sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

// The contract every script keeps (testkit's conformance suite), with each kind of options.
for (const options of [{}, { session: 'fresh' }, { feedbackCycles: 2 }]) {
  describeScript(`{{id}} ${JSON.stringify(options)}`, () => instantiatePlugin<Script>(plugin, options));
}

describe('script {{id}}', () => {
  it('plans one turn per step, numbered, in one session, each scoring its step', () => {
    const plans = instantiatePlugin<Script>(plugin).plan(sampleTask(3));
    expect(plans.map((turn) => [turn.session, turn.steps, turn.scores])).toEqual([
      ['fresh', [0], [0]],
      ['continue', [1], [1]],
      ['continue', [2], [2]],
    ]);
    expect(plans[1]?.prompt).toBe('Step 2 of 3.\n\nMake `python main.py part2` print "2".');
  });

  it('starts a new session for every step with session: fresh', () => {
    const plans = instantiatePlugin<Script>(plugin, { session: 'fresh' }).plan(sampleTask(2));
    expect(plans.map((turn) => turn.session)).toEqual(['fresh', 'fresh']);
  });
});
