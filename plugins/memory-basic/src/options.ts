import { isAbsolute } from 'node:path';
import { z } from 'zod';

export const defaultInstruction =
  'Keep a file named {{file}} in the workspace with notes for whoever continues this work after you, ' +
  'who may not remember this conversation: what the program does and how it is organised, the decisions ' +
  'you made and why, and what is left unfinished. Read it first if it exists, and bring it up to date ' +
  'before you finish.';

export const notesOptions = z
  .object({
    file: z
      .string()
      .min(1)
      .refine((path) => !isAbsolute(path) && !path.split(/[\\/]/).includes('..'), {
        message: 'must be a path inside the workspace (relative, without "..")',
      })
      .default('NOTES.md')
      .describe('The notes file, relative to the workspace.'),
    instruction: z
      .string()
      .min(1)
      .default(defaultInstruction)
      .describe('Text added after the prompt asking the agent to keep the notes; {{file}} is the file name.'),
    remind: z
      .enum(['always', 'fresh-session'])
      .default('always')
      .describe('Add the instruction to every turn, or only to turns that start a fresh session.'),
  })
  .strict();

export type NotesOptions = z.output<typeof notesOptions>;
