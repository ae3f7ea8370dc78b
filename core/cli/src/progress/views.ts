import type { StampedRunEvent } from '@longhaul/core';
import { formatCost, formatDuration, formatPhase, formatStep, ProgressState } from './progress-state.js';

/** Where a view writes: the terminal (stderr), or a stand-in in tests. */
export interface ViewStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressView {
  onEvent(event: StampedRunEvent): void;
  /** Prints what a reporter prints (to the output stream), above the live lines. */
  print(text: string): void;
  /** Prints a notice for the user (to the progress stream), above the live lines. */
  notice(text: string): void;
  close(): void;
}

/**
 * The live view on a TTY, plain lines otherwise. Progress goes to `stream`; what reporters
 * print goes to `out`.
 */
export function progressView(stream: ViewStream, out: ViewStream = stream): ProgressView {
  return stream.isTTY ? new LiveView(stream, out) : new PlainView(stream, out);
}

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/** ` r2` for the second repeat, so repeats of one task and condition can be told apart. */
const repeatOf = (trialId: string) => {
  const repeat = /\.r(\d+)$/.exec(trialId)?.[1];
  return repeat ? ` r${repeat}` : '';
};

/**
 * The first scores of a step, the tamper-signal scorer's left out but for a signal it found
 * (`tamper=2`), which is worth seeing while the run goes on.
 */
const scoreSummary = (scores: Record<string, number | boolean | null>) => {
  const tamper = scores['integrity.tamper'];
  return [
    ...Object.entries(scores)
      .filter(([key]) => !key.startsWith('integrity.'))
      .slice(0, 4)
      .map(
        ([key, value]) =>
          `${key}=${typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(2) : value}`,
      ),
    ...(typeof tamper === 'number' && tamper > 0 ? [`tamper=${tamper}`] : []),
  ].join(' ');
};

/** One line per event that matters, for logs and pipes. */
export class PlainView implements ProgressView {
  private readonly state = new ProgressState();

  constructor(
    private readonly stream: ViewStream,
    private readonly out: ViewStream = stream,
  ) {}

  onEvent(event: StampedRunEvent): void {
    this.state.apply(event);
    const line = this.line(event);
    if (line) this.stream.write(`${line}\n`);
  }

  private line(event: StampedRunEvent): string | undefined {
    switch (event.type) {
      case 'run.start': {
        const trials = `${event.trials} trial${event.trials === 1 ? '' : 's'}`;
        if (!event.resumed || event.complete === undefined)
          return `${event.resumed ? 'resuming' : 'run'} ${event.runDir}: ${trials}`;
        const left = event.trials - event.complete;
        return left === 0
          ? `resuming ${event.runDir}: all ${trials} complete, nothing to run; the summary and reports are written anew`
          : `resuming ${event.runDir}: ${trials}, ${event.complete} complete, ${left} to run`;
      }
      case 'trial.start':
        return `trial ${event.trialId}: start (${event.task}, ${event.condition}, ${event.steps} steps)`;
      case 'step.end': {
        const scores = scoreSummary(event.scores);
        return `trial ${event.trialId}: step ${event.step + 1} ${event.stepId} ${event.status}${scores ? ` ${scores}` : ''}`;
      }
      case 'trial.end':
        return `trial ${event.trialId}: ${event.status} in ${formatDuration(event.durationMs)}, ${formatCost(event.usage.costUsd)}`;
      case 'log':
        return event.level === 'info'
          ? undefined
          : `${event.level}: ${event.trialId ? `${event.trialId}: ` : ''}${event.message}`;
      default:
        return undefined;
    }
  }

  print(text: string): void {
    this.out.write(withNewline(text));
  }

  notice(text: string): void {
    this.stream.write(withNewline(text));
  }

  close(): void {}
}

/**
 * A header and one line per running trial, redrawn in place: the cursor moves back up over the
 * lines drawn last (`ESC[nF`), clears to the end of the screen (`ESC[J`) and draws again. Lines
 * are cut to the terminal width so none wraps, which would break the count.
 */
export class LiveView implements ProgressView {
  private readonly state = new ProgressState();
  private drawn = 0;
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private readonly started = Date.now();

  constructor(
    private readonly stream: ViewStream,
    private readonly out: ViewStream = stream,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => this.draw(), 1000);
    this.timer.unref();
  }

  onEvent(event: StampedRunEvent): void {
    this.state.apply(event);
    if (event.type === 'trial.end') {
      this.above(
        `${event.trialId}: ${event.status} in ${formatDuration(event.durationMs)}, ${formatCost(event.usage.costUsd)}`,
      );
      return;
    }
    if (event.type === 'log' && event.level !== 'info') {
      this.above(`${event.level}: ${event.trialId ? `${event.trialId}: ` : ''}${event.message}`);
      return;
    }
    if (
      event.type === 'run.start' ||
      event.type === 'trial.start' ||
      event.type === 'turn.start' ||
      event.type === 'trial.phase' ||
      event.type === 'step.end'
    ) {
      this.draw();
    }
  }

  print(text: string): void {
    this.clear();
    this.out.write(withNewline(text));
    this.draw();
  }

  notice(text: string): void {
    this.above(text);
  }

  /** A line written above the live lines, where it stays. */
  private above(text: string): void {
    this.clear();
    this.stream.write(withNewline(text));
    this.draw();
  }

  close(): void {
    clearInterval(this.timer);
    this.clear();
    this.closed = true;
  }

  /** The lines the view shows now. */
  lines(): string[] {
    const now = this.now();
    const { total, done, running } = this.state;
    const eta = this.state.etaMs(now);
    const header = `longhaul: ${done}/${total} trials done, ${running.size} running, ${formatDuration(now - this.started)}${eta === undefined ? '' : `, ETA ${formatDuration(eta)}`}, ${formatCost(this.state.costUsd())}`;
    const rows = [...running.values()].map(
      (trial) =>
        `  ${trial.task}${repeatOf(trial.id)}  ${trial.condition}  ${formatStep(trial)}  ${formatPhase(trial, now)}  ${formatCost(trial.costUsd)}`,
    );
    return [header, ...rows];
  }

  private draw(): void {
    if (this.closed) return;
    const width = Math.max(20, (this.stream.columns || 80) - 1);
    const lines = this.lines().map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line));
    this.stream.write(`${this.drawn > 0 ? `\x1b[${this.drawn}F\x1b[J` : ''}${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }

  private clear(): void {
    if (this.drawn > 0) this.stream.write(`\x1b[${this.drawn}F\x1b[J`);
    this.drawn = 0;
  }
}
