import type { ScriptedReplyConfig } from '../config.js';
import { GatewayError } from '../errors.js';
import { estimateUsage } from '../metering.js';
import { type ModelMessage, type ModelReply, type ModelRequest, messageText } from '../model.js';
import { newId } from '../sse.js';
import type { Backend, BackendResult, CallContext } from './backend.js';

/** The last message the caller sent: the user's prompt or the results of the model's tool calls. */
export function lastUserMessage(messages: ModelMessage[]): ModelMessage | undefined {
  return messages.findLast((message) => message.role === 'user');
}

/**
 * Replies from a list. Replies with `when` answer any request whose last user message or tool
 * result contains that text; the others are served in order, each once, per trial.
 */
export class ScriptedBackend implements Backend {
  private readonly cursors = new Map<string, number>();

  constructor(
    private readonly replies: ScriptedReplyConfig[],
    private readonly source: string,
  ) {}

  async complete(request: ModelRequest, context: CallContext): Promise<BackendResult> {
    const last = messageText(lastUserMessage(request.messages));
    let reply = this.replies.find(
      (candidate) => candidate.when !== undefined && last.includes(candidate.when),
    );
    if (!reply) {
      const ordered = this.replies.filter((candidate) => candidate.when === undefined);
      const cursor = this.cursors.get(context.trialId) ?? 0;
      reply = ordered[cursor];
      if (!reply)
        throw new GatewayError(
          400,
          'scripted',
          `scripted model '${context.modelName}' (${this.source}) has no reply left: its ${ordered.length} ` +
            `ordered replies are used up and no 'when' matches the last message ${JSON.stringify(last.slice(0, 120))}`,
        );
      this.cursors.set(context.trialId, cursor + 1);
    }
    return { kind: 'reply', reply: toReply(reply, request) };
  }
}

function toReply(config: ScriptedReplyConfig, request: ModelRequest): ModelReply {
  const content: ModelReply['content'] = [];
  if (config.text !== undefined) content.push({ type: 'text', text: config.text });
  for (const call of config.toolCalls ?? [])
    content.push({
      type: 'tool_call',
      id: call.id ?? newId('toolu_'),
      name: call.name,
      input: call.input ?? {},
    });
  const usage = config.usage;
  return {
    model: request.model,
    content,
    stopReason: content.some((part) => part.type === 'tool_call') ? 'tool_use' : 'end',
    usage: usage ?? estimateUsage(request, content),
    estimated: usage === undefined,
  };
}
