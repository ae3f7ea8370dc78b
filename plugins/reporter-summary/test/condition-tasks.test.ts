import { describe, expect, it } from 'vitest';
import { differingTasksNote } from '../src/condition-tasks.js';

describe('differingTasksNote', () => {
  it('names the tasks behind each condition when they differ', () => {
    expect(
      differingTasksNote([
        { condition: 'ide/checkpoints/none', tasks: ['calc', 'worklog'] },
        { condition: 'oracle/checkpoints/none', tasks: ['calc'] },
      ]),
    ).toBe(
      [
        'the conditions ran different tasks, so their rates are not over the same ones:',
        '  ide/checkpoints/none: calc, worklog',
        '  oracle/checkpoints/none: calc',
      ].join('\n'),
    );
  });

  it('says nothing when every condition ran the same tasks, in whatever order', () => {
    expect(
      differingTasksNote([
        { condition: 'a', tasks: ['calc', 'worklog'] },
        { condition: 'b', tasks: ['worklog', 'calc'] },
      ]),
    ).toBeUndefined();
  });
});
