import type { TrajectoryEvent } from '../contracts/trajectory.js';
import type { ToolCalls, ToolFailure } from '../contracts/trial.js';

/** How many failures a step's scores.json keeps, with why each failed; all are counted. */
export const keptFailures = 20;

/** How much of a failed call's answer is kept: its first line, cut to this many characters. */
const errorChars = 300;

/**
 * Why a call failed, from what the tool answered: the `error` of a JSON answer (the ide harness
 * answers `{"success": false, "error": …}`), else its first line; runs of spaces made one.
 */
function reason(output: string): string {
  const first = output.trim().split('\n')[0] ?? '';
  let text = first;
  try {
    const parsed = JSON.parse(first) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { error?: unknown }).error === 'string')
      text = (parsed as { error: string }).error;
  } catch {}
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Counts a step's tool calls and failed ones as the trajectory goes by, keeping the first
 * failures' tool names and answers. A result without its call still counts as a failure.
 */
export class ToolTally {
  calls = 0;
  failed = 0;
  readonly failures: ToolFailure[] = [];
  private readonly names = new Map<string, string>();

  add(event: TrajectoryEvent): void {
    if (event.type === 'tool.call') {
      this.calls += 1;
      this.names.set(event.id, event.name);
    } else if (event.type === 'tool.result' && event.isError) {
      this.failed += 1;
      if (this.failures.length < keptFailures) {
        const line = reason(event.output);
        this.failures.push({
          tool: this.names.get(event.id) ?? '(unknown call)',
          error: line.length > errorChars ? `${line.slice(0, errorChars)}…` : line,
        });
      }
    }
  }

  get counts(): ToolCalls {
    return { calls: this.calls, failed: this.failed };
  }
}

/**
 * Whether most of a step's tool calls failed: the agent's tools did not work for it (wrong
 * argument names, a tool it does not have), so its score says little about the agent. False for
 * a step without calls or without the count (records from before steps counted them).
 */
export function mostToolCallsFailed(tools: ToolCalls | undefined): boolean {
  return tools !== undefined && tools.calls > 0 && tools.failed * 2 > tools.calls;
}
