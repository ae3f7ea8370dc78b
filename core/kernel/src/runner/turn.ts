import { clampTimerMs } from '../config/timer-limit.js';
import {
  addUsage,
  type ClassifiedError,
  emptyUsage,
  errorStatus,
  type Session,
  type Status,
  type TrajectoryEvent,
  type TurnFocus,
  type TurnResult,
  type Usage,
} from '../contracts/index.js';
import { classifyAs, errorMessage } from './faults.js';

export interface TurnRunOptions {
  session: Session;
  prompt: string;
  focus: TurnFocus;
  /** Wall clock left for this turn (the smaller of the turn limit and what the step has left). */
  timeoutMs: number;
  /** Aborts the turn with `cancelled` (the user stopped the run). */
  cancel: AbortSignal;
  /** USD cap of the trial (0: none) and what the trial spent before this turn. */
  budget: { limitUsd: number; spentUsd: number };
  /** Tokens and cost the model gateway metered for the trial since the last call. */
  takeGatewayUsage?: () => Usage;
  /** Called with the turn's metered usage so far each time the gateway metered more. */
  onMetered?(usage: Usage): void;
  /** Faults the gateway answered the trial's requests with since the last call. */
  takeGatewayErrors?: () => ClassifiedError[];
  /** How long a harness gets to end its turn after an abort before the kernel stops waiting. */
  abandonMs: number;
  onEvent(event: TrajectoryEvent): void;
  maxAgentTurns?: number;
}

export interface TurnRun {
  result: TurnResult;
  events: TrajectoryEvent[];
  /** Faults the model gateway reported during the turn. */
  modelFaults: ClassifiedError[];
  /** The harness did not end after the abort and was left behind; its session is not reused. */
  abandoned: boolean;
}

const gatewayPollMs = 1000;

function hasUsage(usage: Usage): boolean {
  return Object.values(usage).some((value) => value !== 0);
}

/**
 * Runs one turn of a session under the kernel's limits. The turn's signal is aborted with
 * `timeout`, `budget` or `cancelled`; a harness that does not end within `abandonMs` after
 * that is abandoned, so no harness can hang the run.
 */
export async function runTurn(options: TurnRunOptions): Promise<TurnRun> {
  const started = Date.now();
  const events: TrajectoryEvent[] = [];
  const controller = new AbortController();
  const abort = (reason: Status) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  let eventUsage = emptyUsage();
  let gatewayUsage = emptyUsage();
  const spent = () =>
    options.budget.spentUsd + (hasUsage(gatewayUsage) ? gatewayUsage.costUsd : eventUsage.costUsd);
  const checkBudget = () => {
    if (options.budget.limitUsd > 0 && spent() > options.budget.limitUsd) abort('budget');
  };
  const pollGateway = () => {
    if (!options.takeGatewayUsage) return;
    const metered = options.takeGatewayUsage();
    gatewayUsage = addUsage(gatewayUsage, metered);
    checkBudget();
    if (hasUsage(metered)) options.onMetered?.(gatewayUsage);
  };

  const onCancel = () => abort('cancelled');
  if (options.cancel.aborted) abort('cancelled');
  options.cancel.addEventListener('abort', onCancel);
  const timer = setTimeout(() => abort('timeout'), clampTimerMs(options.timeoutMs));
  const poller = options.takeGatewayUsage ? setInterval(pollGateway, gatewayPollMs) : undefined;
  let abandonTimer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<'abandoned'>((resolve) => {
    const arm = () => {
      abandonTimer = setTimeout(() => resolve('abandoned'), clampTimerMs(options.abandonMs));
    };
    if (controller.signal.aborted) arm();
    else controller.signal.addEventListener('abort', arm, { once: true });
  });

  const record = (event: TrajectoryEvent) => {
    events.push(event);
    options.onEvent(event);
  };
  let turnEnd: TurnResult | undefined;
  let harnessEnd: TrajectoryEvent | undefined;
  let endedAfterAbort = false;
  let thrown: unknown;
  let wasAbandoned = false;
  let iterator: AsyncIterator<TrajectoryEvent> | undefined;
  try {
    if (!controller.signal.aborted) {
      iterator = options.session
        .turn(options.prompt, {
          signal: controller.signal,
          focus: options.focus,
          limits: { timeoutMs: options.timeoutMs, maxAgentTurns: options.maxAgentTurns },
        })
        [Symbol.asyncIterator]();
      while (true) {
        const next = await Promise.race([iterator.next(), abandoned]);
        if (next === 'abandoned') {
          wasAbandoned = true;
          break;
        }
        if (next.done) break;
        const event = next.value.ts === undefined ? { ...next.value, ts: Date.now() } : next.value;
        if (event.type === 'turn.end') {
          // Recorded after the gateway's faults of the turn, so that it stays the turn's last event.
          harnessEnd = event;
          turnEnd = event.result;
          endedAfterAbort = controller.signal.aborted;
          break;
        }
        record(event);
        if (event.type === 'usage') {
          eventUsage = addUsage(eventUsage, event.usage);
          checkBudget();
        }
      }
    }
  } catch (error) {
    thrown = error;
  } finally {
    clearTimeout(timer);
    clearTimeout(abandonTimer);
    if (poller) clearInterval(poller);
    options.cancel.removeEventListener('abort', onCancel);
  }
  // Let a well-behaved iterator clean up; never wait on one that hangs.
  if (iterator?.return && !thrown && !wasAbandoned) {
    void Promise.resolve(iterator.return()).catch(() => {});
  }
  pollGateway();

  let status: Status;
  let error: string | undefined;
  if (turnEnd && !endedAfterAbort) {
    status = turnEnd.status;
    error = turnEnd.error;
  } else if (controller.signal.aborted) {
    status = controller.signal.reason as Status;
    error = wasAbandoned
      ? `the harness did not end within ${options.abandonMs} ms of the abort`
      : (turnEnd?.error ?? (thrown === undefined ? undefined : errorMessage(thrown)));
  } else if (thrown !== undefined) {
    status = classifyAs(thrown, 'crash');
    error = errorMessage(thrown);
  } else {
    status = 'error:protocol';
    error = 'the turn ended without a turn.end event';
  }

  // Each fault the gateway answered the agent with is in the trajectory (a refused model, a
  // provider's 429...), and a turn that failed while they happened failed because of them.
  const modelFaults = options.takeGatewayErrors?.() ?? [];
  for (const fault of modelFaults)
    record({
      type: 'error',
      errorClass: fault.errorClass,
      message: `model gateway: ${fault.message}`,
      ts: Date.now(),
    });
  if (harnessEnd) record(harnessEnd);
  const cause = modelFaults.at(-1);
  if (cause && (status === 'failed' || status.startsWith('error:'))) {
    status = errorStatus(cause.errorClass);
    error = cause.message;
  }

  const agentUsage = turnEnd && hasUsage(turnEnd.usage) ? turnEnd.usage : eventUsage;
  const metered = hasUsage(gatewayUsage);
  const result: TurnResult = {
    status,
    finalText: turnEnd?.finalText ?? '',
    usage: metered ? gatewayUsage : agentUsage,
    ...(metered && hasUsage(agentUsage) ? { agentUsage } : {}),
    ...(error ? { error } : {}),
    durationMs: Date.now() - started,
  };
  if (!turnEnd || turnEnd.status !== status) record({ type: 'turn.end', result, ts: Date.now() });
  return { result, events, abandoned: wasAbandoned, modelFaults };
}
