import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';

export interface Call {
  name: string;
  input: Record<string, unknown>;
}

/** What the mock model says on one call: text, tool calls, or a thrown error. */
export type Reply = { text?: string; calls?: Call[]; usage?: [number, number] } | Error;

function result(reply: Exclude<Reply, Error>, n: number): LanguageModelV3GenerateResult {
  const calls = reply.calls ?? [];
  const [input, output] = reply.usage ?? [100, 10];
  return {
    content: [
      ...(reply.text ? [{ type: 'text' as const, text: reply.text }] : []),
      ...calls.map((call, i) => ({
        type: 'tool-call' as const,
        toolCallId: `call-${n}-${i}`,
        toolName: call.name,
        input: JSON.stringify(call.input),
      })),
    ],
    finishReason: { unified: calls.length > 0 ? 'tool-calls' : 'stop', raw: undefined },
    usage: {
      inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: output, text: output, reasoning: 0 },
    },
    warnings: [],
  };
}

/**
 * A mock language model (function form) that answers from a list, or from a function of the
 * call, and keeps every prompt it received.
 */
export function mockModel(
  replies: Reply[] | ((options: LanguageModelV3CallOptions, n: number) => Reply | Promise<Reply>),
): MockLanguageModelV3 & { prompts: LanguageModelV3CallOptions[] } {
  let n = 0;
  const prompts: LanguageModelV3CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options);
      const index = n++;
      const reply = typeof replies === 'function' ? await replies(options, index) : replies[index];
      if (!reply) throw new Error(`the mock model has no reply for call ${index + 1}`);
      if (reply instanceof Error) throw reply;
      return result(reply, index);
    },
  });
  return Object.assign(model, { prompts });
}
