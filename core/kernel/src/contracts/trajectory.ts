import type { Status } from './status.js';
import type { Usage } from './usage.js';

/**
 * The normalized trajectory: every harness translates its agent's output into these events, in
 * the order they happened, and a turn's iterable ends with exactly one `turn.end`. The kernel
 * records each in the step's trajectory.jsonl as it arrives, and stamps `ts` (ms since the epoch)
 * when the harness leaves it out. Every field must be plain JSON.
 *
 * ```ts
 * yield { type: 'session.start', sessionId: this.id, resumed: false };
 * yield { type: 'tool.call', id: 'call-1', name: 'exec', input: { argv: ['ls'] } };
 * yield { type: 'tool.result', id: 'call-1', output: 'main.py\n', isError: false };
 * yield { type: 'message', role: 'assistant', text: 'Done.' };
 * yield { type: 'turn.end', result: { status: 'ok', finalText: 'Done.', usage: emptyUsage(), durationMs: 812 } };
 * ```
 */
export type TrajectoryEvent =
  /** A session began (the first event of its first turn); `resumed` when it continues saved state. */
  | {
      type: 'session.start';
      /** The agent's own id for the conversation, or one the harness makes up. */
      sessionId: string;
      resumed: boolean;
      /** The model the agent talks to, as the agent names it. */
      model?: string;
      ts?: number;
    }
  /** The agent ended the session itself (its process exited, the context was dropped). */
  | { type: 'session.end'; sessionId: string; reason: string; ts?: number }
  /** Text in the conversation: the agent's replies (`assistant`), and prompts or system text it reports. */
  | { type: 'message'; role: 'system' | 'user' | 'assistant'; text: string; ts?: number }
  /** The model's visible reasoning, when the agent shows it. */
  | { type: 'reasoning'; text: string; ts?: number }
  /** The agent called a tool; a `tool.result` with the same `id` answers it later in the turn. */
  | {
      type: 'tool.call';
      /** Unique within the session. */
      id: string;
      /** The tool's name as the agent knows it (`Write`, `exec_command`, `edit_file`). */
      name: string;
      /** The call's arguments as the agent gave them (plain JSON). */
      input: unknown;
      /** Why the agent says it makes the call, when the tool asks for it. */
      explanation?: string;
      ts?: number;
    }
  /** What a tool returned to the agent; `isError` when the tool failed or refused. */
  | { type: 'tool.result'; id: string; output: string; isError: boolean; ts?: number }
  /**
   * Tokens and cost the agent reports, as they accrue (added up by the kernel; see `Usage`). Where
   * the run's gateway meters the traffic, its figures count and these are kept as the agent's own.
   */
  | { type: 'usage'; usage: Partial<Usage>; model?: string; ts?: number }
  /** The agent compacted its context; token counts before and after when it says them. */
  | {
      type: 'compaction';
      trigger: 'auto' | 'manual';
      tokensBefore?: number;
      tokensAfter?: number;
      ts?: number;
    }
  /**
   * A fault during the turn, with its class (an `ErrorClass` or a plugin's own, without the
   * `error:` prefix). It does not end the turn: `turn.end` does, with the status.
   */
  | { type: 'error'; errorClass: string; message: string; ts?: number }
  /** The last event of every turn: how it ended. */
  | { type: 'turn.end'; result: TurnResult; ts?: number };

/** How a turn ended, filled by the harness in its `turn.end` event. */
export interface TurnResult {
  /** `ok` when the agent finished, `failed` when it said it could not, `error:<class>` on a fault (see Status). */
  status: Status;
  /** The agent's last message ('' when it gave none). */
  finalText: string;
  /**
   * What the turn used, as the agent reports it (`emptyUsage()` when it reports nothing). The
   * kernel replaces it with the gateway's metering when the turn's model traffic went through
   * the run's gateway, keeping the harness's figures in `agentUsage`.
   */
  usage: Usage;
  /**
   * Set by the kernel when `usage` is the gateway's metering and the agent also reported its own
   * (Claude Code's estimated cost, say): the agent's figures, kept apart and labelled as its own.
   */
  agentUsage?: Usage;
  /** Set when status is an error: a short human-readable cause. */
  error?: string;
  /** Wall-clock milliseconds from the start of the turn to its end. */
  durationMs: number;
}
