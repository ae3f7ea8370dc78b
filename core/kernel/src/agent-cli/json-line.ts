import { AgentProtocolError } from './agent-turn.js';

export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

/** A finite number, or 0 for anything else (missing usage fields). */
export function asNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** One line of an agent's JSON event stream: an object with a string `type`. */
export function parseJsonLine(agent: string, line: string): JsonObject & { type: string } {
  let event: JsonObject | undefined;
  try {
    event = asObject(JSON.parse(line));
  } catch {
    throw new AgentProtocolError(`${agent} printed a line that is not JSON: ${line.slice(0, 200)}`);
  }
  if (!event || typeof event.type !== 'string')
    throw new AgentProtocolError(`${agent} printed JSON without a type: ${line.slice(0, 200)}`);
  return event as JsonObject & { type: string };
}
