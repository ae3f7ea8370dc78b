import type { TurnFocus } from '@longhaul/core';
import type { Backend, BackendResult, CallContext } from '../backends/backend.js';
import { GatewayError } from '../errors.js';
import { estimateUsage } from '../metering.js';
import type { ModelMessage, ModelReply, ModelRequest, ToolCallPart, ToolResultPart } from '../model.js';
import { newId } from '../sse.js';
import { primaryWorkingDir } from '../working-dir.js';
import { isIgnored, type Listing, listedAs, listingScript, listingTag, parseListing } from './listing.js';
import { planChanges } from './plan.js';
import { type FileSet, readSolution } from './solution.js';
import { detectTools, type ShellTool, shellInput } from './tools.js';

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

function isListing(call: ToolCallPart): boolean {
  return JSON.stringify(call.input).includes(listingTag);
}

/** How a listed workspace differs from the solution (hidden files are not listed, so not compared). */
function compare(solution: FileSet, listing: Listing): string[] {
  const wrong = [...solution]
    .filter(([path, file]) => !isIgnored(path) && !listedAs(listing.files.get(path), file))
    .map(([path]) => path);
  const extra = [...listing.files.keys()].filter((path) => !solution.has(path) && !isIgnored(path));
  return [
    ...(wrong.length > 0 ? [`wrong or missing: ${wrong.join(', ')}`] : []),
    ...(extra.length > 0 ? [`not removed: ${extra.join(', ')}`] : []),
  ];
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
 * second listing to check the result; (4) a final text message, which says what differs if the
 * check failed. The batch to send is the number of oracle tool-call messages already in the
 * turn. A tool call the agent reports as failed ends the turn with a message naming it.
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
    const solution = await readSolution(dir);
    const toolMessages = turn.filter(
      (m) => m.role === 'assistant' && m.content.some((p) => p.type === 'tool_call'),
    );
    const listings = tools.shell && this.options.listing ? calls(turn).filter(isListing) : [];
    if (tools.shell && this.options.listing && listings.length === 0)
      return this.listing(request, tools.shell);
    const outputOf = (call: ToolCallPart | undefined) =>
      call && parseListing(results(turn).find((r) => r.callId === call.id)?.content ?? '');
    const listing = outputOf(listings[0]);
    const plan = planChanges({
      solution,
      tools,
      listing,
      previous: listing ? undefined : await previousState(focus),
      cwd: primaryWorkingDir(request),
    });
    const batch = plan.batches[toolMessages.length - listings.length];
    if (batch) return this.reply(request, batch);
    const steps = focus.steps.map((step) => step.id).join(', ');
    // Agents can refuse a command without flagging an error (Codex's command policy does): check.
    const notes = [...(plan.skipped.length > 0 ? [`Not done: ${plan.skipped.join('; ')}.`] : [])];
    if (tools.shell && this.options.listing && plan.batches.length > 0) {
      if (listings.length < 2) return this.listing(request, tools.shell);
      const check = outputOf(listings[1]);
      const differences = check ? compare(solution, check) : [];
      if (differences.length > 0)
        return this.text(
          request,
          `The oracle did not reach the reference solution of ${steps}: ${differences.join('; ')}.`,
        );
      if (!check) notes.push('Not verified: the agent cut the check listing short.');
    }
    const summary =
      `The workspace now matches the reference solution of ${steps}: ` +
      `${plan.written} file(s) written, ${plan.deleted} deleted.`;
    return this.text(request, [summary, ...notes].join(' '));
  }

  private listing(request: ModelRequest, shell: ShellTool): BackendResult {
    const input = shellInput(shell, listingScript);
    return this.reply(request, [{ type: 'tool_call', id: newId('toolu_'), name: shell.name, input }]);
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
