import type { TurnFocus } from '@longhaul/core';
import type { Backend, BackendResult, CallContext } from '../backends/backend.js';
import { GatewayError } from '../errors.js';
import { estimateUsage } from '../metering.js';
import type { ModelMessage, ModelReply, ModelRequest, ToolCallPart, ToolResultPart } from '../model.js';
import { newId } from '../sse.js';
import { type Listing, listingScript, listingTag, parseListing } from './listing.js';
import { planChanges } from './plan.js';
import { type FileSet, readSolution } from './solution.js';
import { detectTools, shellInput } from './tools.js';

export interface OracleOptions {
  listing: boolean;
}

/** Messages of the current turn: everything after the last user message that is not tool results. */
export function currentTurn(messages: ModelMessage[]): ModelMessage[] {
  const start = messages.findLastIndex(
    (message) => message.role === 'user' && !message.content.some((part) => part.type === 'tool_result'),
  );
  return messages.slice(start + 1);
}

function calls(messages: ModelMessage[]): ToolCallPart[] {
  return messages.flatMap((m) => m.content.filter((part): part is ToolCallPart => part.type === 'tool_call'));
}

function results(messages: ModelMessage[]): ToolResultPart[] {
  return messages.flatMap((m) =>
    m.content.filter((part): part is ToolResultPart => part.type === 'tool_result'),
  );
}

function solutionDir(focus: TurnFocus): string | undefined {
  return focus.solution ?? focus.steps.at(-1)?.solution;
}

/** The reference state before this turn's steps: the previous step's solution, or the seed. */
async function previousState(focus: TurnFocus): Promise<FileSet | undefined> {
  const first = focus.steps[0];
  if (!first) return undefined;
  const before = focus.task.steps.filter((step) => step.index < first.index).at(-1);
  const dir = before ? before.solution : focus.task.seed;
  return dir ? readSolution(dir) : undefined;
}

/**
 * A model that makes the calling agent write the turn's reference solution with the agent's own
 * tools. It is stateless: every reply is computed from the trial's focus and the conversation, so
 * a retried or resumed request gets the same answer.
 *
 * A turn goes: (1) a workspace listing through the agent's shell tool, when it has one; (2) the
 * tool-call batches that turn the listed workspace into the solution (see planChanges); (3) a
 * final text message. The batch to send is the number of oracle tool-call messages already in
 * the turn. A failed tool call ends the turn with a message naming it.
 */
export class OracleBackend implements Backend {
  constructor(private readonly options: OracleOptions) {}

  async complete(request: ModelRequest, context: CallContext): Promise<BackendResult> {
    const focus = context.focus;
    const dir = focus && solutionDir(focus);
    if (!focus || !dir)
      throw new GatewayError(
        400,
        'oracle',
        focus
          ? `oracle: the turn's steps (${focus.steps.map((s) => s.id).join(', ')}) have no reference solution`
          : `oracle: trial ${context.trialId} has no turn focus (the runner sets it with gateway.focus() before each turn)`,
      );
    const turn = currentTurn(request.messages);
    const failed = results(turn).find((result) => result.isError);
    if (failed) {
      const call = calls(turn).find((c) => c.id === failed.callId);
      return this.text(
        request,
        `The oracle stopped: the ${call?.name ?? 'tool'} call failed: ${failed.content.slice(0, 500)}`,
      );
    }
    const tools = detectTools(request.tools);
    const doneCalls = turn.filter(
      (m) => m.role === 'assistant' && m.content.some((p) => p.type === 'tool_call'),
    );
    let listing: Listing | undefined;
    let sent = doneCalls.length;
    if (this.options.listing && tools.shell) {
      const listingCall = calls(turn).find((c) => JSON.stringify(c.input).includes(listingTag));
      if (!listingCall) {
        const input = shellInput(tools.shell, listingScript);
        return this.reply(request, [
          { type: 'tool_call', id: newId('toolu_'), name: tools.shell.name, input },
        ]);
      }
      const output = results(turn).find((r) => r.callId === listingCall.id)?.content ?? '';
      listing = parseListing(output);
      sent -= 1;
    }
    const plan = planChanges({
      solution: await readSolution(dir),
      tools,
      listing,
      previous: listing ? undefined : await previousState(focus),
    });
    const batch = plan.batches[sent];
    if (batch) return this.reply(request, batch);
    const steps = focus.steps.map((step) => step.id).join(', ');
    const summary =
      `The workspace now matches the reference solution of ${steps}: ` +
      `${plan.written} file(s) written, ${plan.deleted} deleted.`;
    return this.text(
      request,
      plan.skipped.length > 0 ? `${summary} Not done: ${plan.skipped.join('; ')}.` : summary,
    );
  }

  private text(request: ModelRequest, text: string): BackendResult {
    return this.reply(request, [{ type: 'text', text }]);
  }

  private reply(request: ModelRequest, content: ModelReply['content']): BackendResult {
    return {
      kind: 'reply',
      reply: {
        model: request.model,
        content,
        stopReason: content.some((part) => part.type === 'tool_call') ? 'tool_use' : 'end',
        usage: estimateUsage(request, content),
        estimated: true,
      },
    };
  }
}
