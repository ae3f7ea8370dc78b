import { z } from 'zod';
import { defineTool } from '../tools/tool.js';
import { combined } from './files.js';
import { blocked, commandRefusal } from './guard.js';
import { explains, explanation, schema } from './schema.js';

/**
 * The released harness's terminal (harness.py `run_terminal_cmd`, docker_utils.py
 * `run_command_in_container`): `sh -c` in the workspace with a time limit, standard output and
 * error as one text, success when the exit code is 0 (the code itself is not returned). A
 * background command writes its output to `bg_process.log` in the temp directory, as upstream's
 * `nohup … > /tmp/bg_process.log` (each one overwrites it).
 */
export const upstreamRunTerminalCmd = defineTool({
  name: 'run_terminal_cmd',
  description:
    "Run a shell command in the sandboxed container (not on the user's machine). Foreground commands are stopped after the time limit (120 s by default), so servers and other long-running processes (uvicorn, npm run dev, flask run, node server.js) MUST run with is_background=true.",
  input: z.object({ command: z.string(), is_background: z.boolean().default(false), explanation }),
  advertised: schema(
    {
      command: { type: 'string', description: 'The command to run.' },
      ...explains('why the command is run and how it serves the goal'),
      is_background: {
        type: 'boolean',
        description:
          'Run it in the background. Needed for web and dev servers and any other process that keeps running; false only for commands that finish at once.',
      },
    },
    ['command', 'is_background'],
  ),
  async run(input, ctx) {
    const refusal = commandRefusal(input.command);
    if (refusal) return blocked('run_terminal_cmd', refusal);
    const echo = {
      command: input.command,
      explanation: input.explanation ?? '',
      is_background: input.is_background,
    };
    if (input.is_background) {
      const handle = await ctx.background.start(
        ctx.sandbox,
        `exec > "\${TMPDIR:-/tmp}/bg_process.log" 2>&1\n${input.command}`,
      );
      return {
        success: true,
        output: `Background process started (${handle}); its output goes to \${TMPDIR:-/tmp}/bg_process.log`,
        error: '',
        ...echo,
      };
    }
    const seconds = ctx.options.commandTimeoutSeconds;
    const ran = await combined(ctx, ['sh', '-c', input.command], seconds * 1000);
    if (ran.timedOut)
      return {
        success: false,
        output: `The command was stopped after ${seconds} seconds. A server or other process that keeps running needs is_background=true.\n\nOutput so far:\n${ran.output}`,
        error: '',
        ...echo,
      };
    return { success: ran.exitCode === 0, output: ran.output, error: '', ...echo };
  },
});
