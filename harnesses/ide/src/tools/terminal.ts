import { z } from 'zod';
import { exists } from './read.js';
import { defineTool, fail } from './tool.js';

function tail(text: string, limit: number): string {
  return text.length > limit
    ? `...[${text.length - limit} earlier characters cut]\n${text.slice(-limit)}`
    : text;
}

const logLimit = 20_000;

export const runTerminalCmd = defineTool({
  name: 'run_terminal_cmd',
  description:
    'Run a shell command in the workspace and get its output and exit code. Foreground commands have a time limit (exit code 124 when it is hit); servers and other long-running processes MUST use is_background=true, which returns a handle. Pass background_handle with action "status" (output so far, exit code once ended) or "stop".',
  input: z.object({
    command: z.string().default('').describe('The shell command (run with sh -c in the workspace)'),
    is_background: z.boolean().default(false).describe('Run in the background and return a handle at once'),
    timeout_seconds: z.number().positive().optional().describe('Time limit of a foreground command'),
    background_handle: z.string().optional().describe('Handle of an earlier background command'),
    action: z.enum(['status', 'stop']).optional().describe('What to do with background_handle'),
  }),
  async run(input, ctx) {
    if (input.background_handle) {
      const running = ctx.background.get(input.background_handle);
      if (!running)
        return fail(
          `No background command ${input.background_handle}; known: ${ctx.background.handles().join(', ') || 'none'}`,
        );
      if (input.action === 'stop') await ctx.background.stop(input.background_handle);
      const output = running.process.output();
      return {
        success: true,
        background_handle: input.background_handle,
        command: running.command,
        running: running.exit === undefined,
        exit_code: running.exit ?? null,
        stdout: tail(output.stdout, logLimit),
        stderr: tail(output.stderr, logLimit),
      };
    }
    if (!input.command.trim()) return fail('command is empty');
    const blocked = await ctx.policy.blockedInCommand(input.command, (rel) => exists(ctx, rel));
    if (blocked)
      return fail(`Access denied: the command names ${blocked}, a protected grading file`, {
        blocked_by_security: true,
      });
    if (input.is_background) {
      const handle = await ctx.background.start(ctx.sandbox, input.command);
      return {
        success: true,
        background_handle: handle,
        message: `Started in the background as ${handle}; call run_terminal_cmd with background_handle "${handle}" and action "status" for its output`,
      };
    }
    const limit = Math.min(input.timeout_seconds ?? ctx.options.commandTimeoutSeconds, 3600);
    const result = await ctx.sandbox.exec(['sh', '-c', input.command], {
      timeoutMs: limit * 1000,
      signal: ctx.signal,
      maxOutputBytes: 1024 * 1024,
    });
    const exitCode = result.timedOut ? 124 : result.exitCode;
    return {
      success: exitCode === 0,
      exit_code: exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      duration_ms: result.durationMs,
      ...(result.timedOut
        ? {
            error: `Command timed out after ${limit} seconds. A server or other long-running process needs is_background=true.`,
          }
        : exitCode === 0
          ? {}
          : { error: `exit code ${exitCode}` }),
    };
  },
});
