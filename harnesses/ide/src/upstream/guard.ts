import { posix } from 'node:path';
import type { ToolResult } from '../tools/tool.js';

/**
 * The released harness's evaluation guard (harness.py, `is_test_related_operation` and the
 * `security_wrapper` decorator): a path whose name is a test runner or starts with `task_tests.`,
 * or that holds one of those names anywhere, and a command that mentions one, are refused with
 * `blocked_by_security`. Unlike the paper's list it does not cover `tests/` or `test_*.py`.
 */
const runners = ['run_tests.sh', 'run-tests.sh'];

/** Phrases of a command that run the tests (besides naming a runner or task_tests.*). */
const testRuns = [
  './run_tests',
  'sh run_tests',
  'bash run_tests',
  './run-tests',
  'sh run-tests',
  'bash run-tests',
  'python task_tests',
  'node task_tests',
];

/** Why upstream refuses a tool on this path, or undefined. */
export function pathRefusal(path: string): string | undefined {
  const normal = path.replace(/\\/g, '/');
  const name = posix.basename(normal);
  if (runners.includes(name) || name.startsWith('task_tests.'))
    return `Access denied: ${name} is kept from the agent for the evaluation`;
  const lower = normal.toLowerCase();
  if (runners.some((runner) => lower.includes(runner)))
    return 'Access denied: test runner scripts are kept from the agent';
  if (lower.includes('task_tests.')) return 'Access denied: task_tests.* files are kept from the agent';
  return undefined;
}

/** Why upstream refuses a command, or undefined: substrings, not words (`ls tasks` runs). */
export function commandRefusal(command: string): string | undefined {
  const lower = command.toLowerCase();
  if (runners.some((runner) => lower.includes(runner)))
    return 'Access denied: running the test runner is kept from the agent';
  if (lower.includes('task_tests.')) return 'Access denied: commands on task_tests.* files are refused';
  if (testRuns.some((phrase) => lower.includes(phrase)))
    return 'Access denied: running the tests is kept from the agent';
  return undefined;
}

/** The result of a refused call, as the decorator returns it. */
export function blocked(operation: string, reason: string): ToolResult {
  return { success: false, error: reason, operation, blocked_by_security: true };
}

/** read_file's own rule on top: nothing under a `tasks` folder, no run_tests.sh. */
export function readRefusal(path: string): string | undefined {
  const parts = path.replace(/\\/g, '/').split('/');
  return parts.includes('tasks') || parts.at(-1) === 'run_tests.sh'
    ? 'Access denied: files under tasks/ and run_tests.sh cannot be read'
    : undefined;
}
