import { definePlugin, tokens } from '@longhaul/core';
import { z } from 'zod';
import { NoMemory, NotesMemory } from './notes.js';
import { notesOptions } from './options.js';

export { NoMemory, NotesMemory } from './notes.js';
export { defaultInstruction, type NotesOptions, notesOptions } from './options.js';

export const none = definePlugin({
  kind: 'memory',
  id: 'none',
  description: 'No memory: prompts go to the agent unchanged',
  options: z.object({}).strict(),
  register(bind) {
    bind(tokens.Memory).toConstantValue(new NoMemory());
  },
});

export const notes = definePlugin({
  kind: 'memory',
  id: 'notes',
  description: 'Asks the agent to keep NOTES.md and carries it across fresh sessions and workspace resets',
  options: notesOptions,
  register(bind, options) {
    bind(tokens.Memory).toConstantValue(new NotesMemory(options));
  },
});

export default [none, notes];
