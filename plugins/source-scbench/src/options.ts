import { z } from 'zod';

export const optionsSchema = z.strictObject({
  path: z
    .string()
    .describe(
      "A directory of SlopCodeBench problems, or one problem directory (with config.yaml), relative to the experiment's directory",
    ),
  problems: z
    .array(z.string())
    .optional()
    .describe('Only these problems (exact names or globs like "file_*")'),
  entryCommand: z
    .string()
    .default('python3 {entry_file}')
    .describe(
      'How the solution is run; {entry_file} is the config\'s entry_file with ".py" added when it has no extension. Substituted for %%%ENTRYPOINT:entry_command%%% in specs and passed to pytest as --entrypoint',
    ),
  python: z
    .string()
    .default('/usr/bin/python3')
    .describe(
      'Interpreter that runs the hidden pytest suites (needs pytest: apt-get install python3-pytest)',
    ),
  requiresPython: z
    .string()
    .regex(/^\s*(>=)?\s*\d+(\.\d+)*\s*$/, 'a version like "3.12" or ">=3.12"')
    .optional()
    .describe(
      'Lowest Python for problems whose config sets no requires_python; "3.12" is what SlopCodeBench\'s own environment (python3.12) gives every problem',
    ),
  suiteTimeoutSeconds: z
    .number()
    .positive()
    .default(1800)
    .describe('Wall clock for one pytest run over a checkpoint (its tests and, as regression, earlier ones)'),
});
export type ScbenchOptions = z.output<typeof optionsSchema>;
