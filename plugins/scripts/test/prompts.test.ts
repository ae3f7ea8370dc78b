import type { Script } from '@longhaul/core';
import { instantiatePlugin, sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { checkpoints, promptNames, singleShot } from '../src/index.js';

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
    for (const prompt of promptNames) {
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
