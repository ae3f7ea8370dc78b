import type { Status } from './status.js';
import type { Usage } from './usage.js';

/**
 * The normalized trajectory: every harness translates its agent's output into these events.
 * The kernel stamps `ts` (ms since epoch) when a harness leaves it out.
 */
export type TrajectoryEvent =
  | { type: 'session.start'; sessionId: string; resumed: boolean; model?: string; ts?: number }
  | { type: 'session.end'; sessionId: string; reason: string; ts?: number }
  | { type: 'message'; role: 'system' | 'user' | 'assistant'; text: string; ts?: number }
  | { type: 'reasoning'; text: string; ts?: number }
  | {
      type: 'tool.call';
      id: string;
      name: string;
      input: unknown;
      /** Why the agent says it makes the call, when the tool asks for it. */
      explanation?: string;
      ts?: number;
    }
  | { type: 'tool.result'; id: string; output: string; isError: boolean; ts?: number }
  | { type: 'usage'; usage: Partial<Usage>; model?: string; ts?: number }
  | {
      type: 'compaction';
      trigger: 'auto' | 'manual';
      tokensBefore?: number;
      tokensAfter?: number;
      ts?: number;
    }
  | { type: 'error'; errorClass: string; message: string; ts?: number }
  | { type: 'turn.end'; result: TurnResult; ts?: number };

export interface TurnResult {
  status: Status;
  /** The agent's last message. */
  finalText: string;
  usage: Usage;
  /**
   * Set by the kernel when `usage` is the gateway's metering and the agent also reported its own
   * (Claude Code's estimated cost, say): the agent's figures, kept apart and labelled as its own.
   */
  agentUsage?: Usage;
  /** Set when status is an error: a short human-readable cause. */
  error?: string;
  durationMs: number;
}
