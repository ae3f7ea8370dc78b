/**
 * Harbor's Agent Trajectory Interchange Format (ATIF), the subset longhaul writes. Field names
 * follow the specification (snake_case); see harbor-framework/harbor docs/rfcs/0001-trajectory-format.md.
 */
export const atifSchemaVersion = 'ATIF-v1.7';

export interface AtifTrajectory {
  schema_version: typeof atifSchemaVersion;
  session_id: string;
  trajectory_id?: string;
  agent: AtifAgent;
  steps: AtifStep[];
  notes?: string;
  final_metrics?: AtifFinalMetrics;
  extra?: Record<string, unknown>;
}

export interface AtifAgent {
  name: string;
  version: string;
  model_name?: string;
  extra?: Record<string, unknown>;
}

export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: 'system' | 'user' | 'agent';
  message: string;
  /** Agent steps only, like the fields below. */
  model_name?: string;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifObservationResult[] };
  metrics?: AtifMetrics;
  extra?: Record<string, unknown>;
}

export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
}

export interface AtifObservationResult {
  source_call_id?: string;
  content?: string;
  extra?: Record<string, unknown>;
}

export interface AtifMetrics {
  /** All input tokens, cached included. */
  prompt_tokens?: number;
  completion_tokens?: number;
  /** The part of prompt_tokens served from cache. */
  cached_tokens?: number;
  cost_usd?: number;
  extra?: Record<string, unknown>;
}

export interface AtifFinalMetrics {
  total_prompt_tokens?: number;
  total_completion_tokens?: number;
  total_cached_tokens?: number;
  total_cost_usd?: number;
  total_steps?: number;
  extra?: Record<string, unknown>;
}
