import type { ModelMessage } from 'ai';

export interface TruncateOptions {
  /** Truncation is considered only past this many messages. */
  afterMessages: number;
  /** Tokens the system prompt and the kept messages may take. */
  budgetTokens: number;
}

/** A rough count (four characters a token), the same for every provider. */
export function estimateTokens(value: unknown): number {
  return Math.ceil((typeof value === 'string' ? value : JSON.stringify(value)).length / 4);
}

/** Messages grouped so that a group starts at a user or assistant message (tool results stay with their call). */
function groups(messages: ModelMessage[]): ModelMessage[][] {
  const out: ModelMessage[][] = [];
  for (const message of messages) {
    if (message.role === 'tool' && out.length > 0) out.at(-1)!.push(message);
    else out.push([message]);
  }
  return out;
}

/**
 * IDE-Bench's context management: past `afterMessages` messages, if the history no longer fits
 * the budget, keep the first user message and the most recent whole turns that fit (never a
 * tool result without its call). Returns undefined when nothing needs to go.
 */
export function truncateHistory(
  system: string,
  messages: ModelMessage[],
  options: TruncateOptions,
): { messages: ModelMessage[]; tokensBefore: number; tokensAfter: number } | undefined {
  if (messages.length <= options.afterMessages) return undefined;
  const systemTokens = estimateTokens(system);
  const tokensBefore = systemTokens + messages.reduce((sum, m) => sum + estimateTokens(m), 0);
  if (tokensBefore <= options.budgetTokens) return undefined;
  const [first, ...rest] = messages;
  let used = systemTokens + estimateTokens(first);
  const kept: ModelMessage[][] = [];
  const all = groups(rest);
  for (let i = all.length - 1; i >= 0; i--) {
    const cost = all[i]!.reduce((sum, m) => sum + estimateTokens(m), 0);
    if (kept.length > 0 && used + cost > options.budgetTokens) break;
    kept.unshift(all[i]!);
    used += cost;
  }
  const result = [first!, ...kept.flat()];
  if (result.length === messages.length) return undefined;
  return { messages: result, tokensBefore, tokensAfter: used };
}
