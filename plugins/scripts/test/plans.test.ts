import { planProblems, type Script } from '@longhaul/core';
import { instantiatePlugin, sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugins, { checkpoints, conversation, isolated, singleShot } from '../src/index.js';

const task = sampleTask(3);
const plan = (plugin: (typeof plugins)[number], options: unknown = {}) =>
  instantiatePlugin<Script>(plugin, options).plan(task);

describe('checkpoints', () => {
  it('plans a fresh session per step over the carried workspace, scoring each step after its turn', () => {
    const turns = plan(checkpoints);
    expect(turns.map((t) => [t.session, t.workspace, t.steps, t.scores, t.feedbackCycles])).toEqual([
      ['fresh', { action: 'carry' }, [0], [0], 0],
      ['fresh', { action: 'carry' }, [1], [1], 0],
      ['fresh', { action: 'carry' }, [2], [2], 0],
    ]);
  });

  it("puts each step's prompt in its turn, and tells later turns the workspace is the agent's own work", () => {
    const turns = plan(checkpoints);
    for (const [i, turn] of turns.entries()) expect(turn.prompt).toContain(task.steps[i]!.prompt);
    expect(turns[0]!.prompt).toContain('Write a program');
    expect(turns[0]!.prompt).toContain('`python main.py`');
    expect(turns[0]!.prompt).not.toContain('you wrote');
    expect(turns[1]!.prompt).toContain('the program you wrote for the earlier parts');
    expect(turns[1]!.prompt).not.toContain('{{');
  });
});

describe('sandbox option', () => {
  it('asks for a fresh sandbox on every turn of checkpoints and isolated when set to fresh', () => {
    for (const plugin of [checkpoints, isolated]) {
      const turns = plan(plugin, { sandbox: 'fresh' });
      expect(turns.map((t) => [t.sandbox, t.session])).toEqual([
        ['fresh', 'fresh'],
        ['fresh', 'fresh'],
        ['fresh', 'fresh'],
      ]);
      expect(planProblems(task, turns)).toEqual([]);
    }
  });

  it('keeps one sandbox by default', () => {
    for (const plugin of [checkpoints, isolated]) {
      expect(plan(plugin).map((t) => t.sandbox ?? 'keep')).toEqual(['keep', 'keep', 'keep']);
      expect(plan(plugin, { sandbox: 'keep' })).toEqual(plan(plugin));
    }
  });

  it('is refused by scripts that continue a session or have one turn, and checked for its value', () => {
    for (const plugin of [conversation, singleShot]) {
      const parsed = plugin.options.safeParse({ sandbox: 'fresh' });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['sandbox'] });
    }
    const parsed = checkpoints.options.safeParse({ sandbox: 'new' });
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['sandbox'] });
  });
});

describe('conversation', () => {
  it('plans one session: fresh first, continued after, workspace carried', () => {
    expect(plan(conversation).map((t) => [t.session, t.workspace.action, t.scores])).toEqual([
      ['fresh', 'carry', [0]],
      ['continue', 'carry', [1]],
      ['continue', 'carry', [2]],
    ]);
  });
});

describe('isolated', () => {
  it('resets to the reference after the previous step before every step, in a fresh session', () => {
    expect(plan(isolated).map((t) => [t.session, t.workspace, t.scores])).toEqual([
      ['fresh', { action: 'reset', afterStep: -1 }, [0]],
      ['fresh', { action: 'reset', afterStep: 0 }, [1]],
      ['fresh', { action: 'reset', afterStep: 1 }, [2]],
    ]);
  });

  it('tells the agent the workspace holds a working implementation, not its own work', () => {
    const second = plan(isolated)[1]!.prompt;
    expect(second).toContain('a working implementation of the earlier parts');
    expect(second).not.toContain('you wrote');
  });
});

describe('single-shot', () => {
  it('delivers every step in one turn and scores them all at the end', () => {
    const [turn, ...rest] = plan(singleShot);
    expect(rest).toEqual([]);
    expect(turn).toMatchObject({
      session: 'fresh',
      workspace: { action: 'carry' },
      steps: [0, 1, 2],
      scores: [0, 1, 2],
    });
    expect(turn!.prompt).toMatch(/## Part 1: Part 1\n\nMake[\s\S]*## Part 2: Part 2[\s\S]*## Part 3: Part 3/);
  });

  it('uses the full spec when the task has one', () => {
    const prompt = instantiatePlugin<Script>(singleShot).plan({ ...task, fullSpec: 'THE WHOLE DOCUMENT' })[0]!
      .prompt;
    expect(prompt).toContain('THE WHOLE DOCUMENT');
    expect(prompt).not.toContain('## Part');
  });

  it('pools feedback cycles over the steps so the turns match the per-step scripts', () => {
    // 3 steps of 1 + 3 turns each: one turn plus 11 cycles.
    expect(plan(singleShot, { feedbackCycles: 3 })[0]!.feedbackCycles).toBe(11);
    expect(plan(singleShot, { feedbackCycles: 0 })[0]!.feedbackCycles).toBe(0);
    expect(plan(checkpoints, { feedbackCycles: 3 }).map((t) => t.feedbackCycles)).toEqual([3, 3, 3]);
  });
});

describe('prompt options', () => {
  it('fills every placeholder of a custom template', () => {
    const turns = plan(checkpoints, {
      template:
        'Step {{step}} of {{steps}} ({{title}}), run `{{entrypoint}}`. {{continuation}}\n---\n{{spec}}',
      firstNote: 'START',
      continuationNote: 'GO ON with {{entrypoint}}',
    });
    expect(turns[0]!.prompt).toBe(
      `Step 1 of 3 (Part 1), run \`python main.py\`. START\n---\n${task.steps[0]!.prompt}\n`,
    );
    expect(turns[2]!.prompt).toBe(
      `Step 3 of 3 (Part 3), run \`python main.py\`. GO ON with python main.py\n---\n${task.steps[2]!.prompt}\n`,
    );
  });

  it('rejects a template with an unknown placeholder, naming it and the known ones', () => {
    expect(() => checkpoints.options.parse({ template: 'Do {{spce}}' })).toThrow(
      /unknown placeholder \{\{spce\}\}; known: \{\{spec\}\}/,
    );
  });

  it('rejects unknown options and negative feedback cycles', () => {
    expect(() => checkpoints.options.parse({ feedbackCycle: 1 })).toThrow(/feedbackCycle/);
    expect(() => checkpoints.options.parse({ feedbackCycles: -1 })).toThrow();
  });

  it('plans nothing for a task without steps', () => {
    for (const plugin of plugins)
      expect(instantiatePlugin<Script>(plugin).plan({ ...task, steps: [] })).toEqual([]);
  });
});
