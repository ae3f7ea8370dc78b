import type { Script } from '@longhaul/core';
import { instantiatePlugin, sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { checkpoints, conversation, isolated, promptNames, singleShot } from '../src/index.js';

const task = sampleTask(3);
const plan = (options: unknown, plugin = checkpoints) =>
  instantiatePlugin<Script>(plugin, options).plan(task);

describe('prompt strategies', () => {
  it('just-solve asks only for a working program, with the environment note that fits the turn', () => {
    const turns = plan({ prompt: 'just-solve' });
    expect(turns[0]!.prompt).toMatch(
      /^Implement a program that satisfies the specification below completely/,
    );
    expect(turns[0]!.prompt).toContain('Work in a virtual environment');
    expect(turns[0]!.prompt).not.toContain('set up earlier');
    expect(turns[1]!.prompt).toContain('Keep working in the virtual environment you set up earlier');
    expect(turns[1]!.prompt).not.toMatch(/habits|plan what/);
  });

  it('anti-slop lists the habits to avoid and, when continuing, to implement only what changed', () => {
    const turns = plan({ prompt: 'anti-slop' });
    expect(turns[0]!.prompt).toContain('wrappers that only forward to another function');
    expect(turns[0]!.prompt).toContain('No function or class that does everything.');
    expect(turns[0]!.prompt).not.toContain('only what is new or changed');
    expect(turns[2]!.prompt).toContain('Implement only what is new or changed below');
  });

  it('plan-first asks for a plan, a simple solution, a correctness pass and a refactor, in that order', () => {
    const [first] = plan({ prompt: 'plan-first' });
    const order = ['plan what you need', 'simplest solution', 'completely correct', 'Refactor'].map((text) =>
      first!.prompt.indexOf(text),
    );
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('every strategy puts in the spec verbatim and the entrypoint, and leaves no placeholder', () => {
    for (const prompt of promptNames.filter((name) => name !== 'swe-steps')) {
      const turns = plan({ prompt });
      for (const [index, turn] of turns.entries()) {
        expect(turn.prompt).toContain(task.steps[index]!.prompt.trim());
        expect(turn.prompt).toContain(`\`${task.entrypoint}\``);
        expect(turn.prompt).not.toContain('{{');
      }
    }
    // Single-shot delivers the whole task as a first turn.
    expect(plan({ prompt: 'anti-slop' }, singleShot)[0]!.prompt).toContain(
      'Write the program that satisfies the whole',
    );
  });

  it('refuses a prompt together with a template or note of its own, and unknown names', () => {
    expect(() => plan({ prompt: 'anti-slop', template: '{{spec}}' })).toThrow(
      /prompt 'anti-slop' sets template/,
    );
    expect(() => plan({ prompt: 'lazy' })).toThrow(/just-solve|anti-slop|plan-first/);
  });
});

describe('swe-steps settings', () => {
  const chain = { ...sampleTask(3), entrypoint: '', fullSpec: 'THE PRD' };
  const planOf = (plugin: typeof checkpoints, options: object = {}) =>
    instantiatePlugin<Script>(plugin, { prompt: 'swe-steps', ...options }).plan(chain);

  it('individual: one pull request alone, from the merged earlier ones, three cycles each', () => {
    const turns = planOf(isolated);
    expect(turns.map((t) => [t.session, t.workspace, t.feedbackCycles])).toEqual([
      ['fresh', { action: 'reset', afterStep: -1 }, 2],
      ['fresh', { action: 'reset', afterStep: 0 }, 2],
      ['fresh', { action: 'reset', afterStep: 1 }, 2],
    ]);
    expect(turns[0]!.prompt).toMatch(/^You are working on ONE pull request/);
    expect(turns[1]!.prompt).toContain('every earlier pull request of the series, merged');
    expect(turns[1]!.prompt).toContain(chain.steps[1]!.prompt.trim());
    expect(turns[1]!.prompt).toContain('Do not run tests');
    expect(turns[1]!.prompt).toContain('Treat that output as the ground truth');
  });

  it('global: one session, the agent told the repository holds its own earlier work', () => {
    const turns = planOf(conversation);
    expect(turns.map((t) => t.session)).toEqual(['fresh', 'continue', 'continue']);
    expect(turns[0]!.prompt).toContain('the first request of a series');
    expect(turns[2]!.prompt).toContain('your own work on the earlier ones');
    expect(turns[2]!.prompt).toContain('Do not read test files');
  });

  it('PRD: a planning turn that must leave PLAN.md, then the work turn with a pooled 3N budget', () => {
    const [planning, work, ...rest] = planOf(singleShot);
    expect(rest).toEqual([]);
    expect(planning).toMatchObject({ session: 'fresh', steps: [0, 1, 2], scores: [], feedbackCycles: 0 });
    expect(planning!.prompt).toContain('THE PRD');
    expect(planning!.prompt).toContain('write PLAN.md');
    expect(planning!.prompt).toContain('Change no other file');
    expect(work).toMatchObject({ session: 'continue', steps: [0, 1, 2], scores: [0, 1, 2] });
    // Three cycles per request, pooled: 9 turns in all.
    expect(work!.feedbackCycles).toBe(8);
    expect(work!.prompt).toContain('following PLAN.md');
    expect(work!.prompt).not.toContain('THE PRD');
  });

  it('local (checkpoints): fresh context per request over the carried workspace', () => {
    const turns = planOf(checkpoints);
    expect(turns.map((t) => [t.session, t.workspace.action])).toEqual([
      ['fresh', 'carry'],
      ['fresh', 'carry'],
      ['fresh', 'carry'],
    ]);
    expect(turns[1]!.prompt).toContain('holds work on the earlier ones');
  });

  it('takes a budget of its own and leaves no placeholder', () => {
    expect(planOf(isolated, { feedbackCycles: 0 })[0]!.feedbackCycles).toBe(0);
    expect(planOf(singleShot, { feedbackCycles: 1 })[1]!.feedbackCycles).toBe(5);
    for (const plugin of [isolated, conversation, singleShot, checkpoints]) {
      for (const turn of planOf(plugin)) expect(turn.prompt).not.toMatch(/\{\{|\{feedback\}/);
    }
  });
});

describe('tasks whose prompts are complete as written (IDE-Bench)', () => {
  const written = { ...sampleTask(2), promptsAsWritten: true };
  const planOf = (options: unknown, plugin = checkpoints) =>
    instantiatePlugin<Script>(plugin, options).plan(written);

  it("get each step's prompt as it is from every script, no note of the script's own", () => {
    for (const plugin of [checkpoints, conversation, isolated]) {
      const turns = planOf({}, plugin);
      expect(turns.map((turn) => turn.prompt)).toEqual(
        written.steps.map((step) => `${step.prompt.trim()}\n`),
      );
      for (const turn of turns) expect(turn.prompt).not.toMatch(/Write a program|requirements\.txt|run as/);
    }
    expect(planOf({}, singleShot)[0]!.prompt).not.toMatch(/Write a program/);
  });

  it('are framed again when the experiment asks for a prompt, template or note', () => {
    expect(planOf({ prompt: 'just-solve' })[0]!.prompt).toMatch(/^Implement a program/);
    expect(planOf({ template: 'Do this: {{spec}}' })[0]!.prompt).toMatch(/^Do this: /);
    expect(planOf({ firstNote: 'Hello.' })[0]!.prompt).toMatch(/^Hello\./);
  });
});
