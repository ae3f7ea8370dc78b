import { RunCancellation, type RunOptions, type RunResult } from '@longhaul/core';
import { terminalWidth } from '../fit-columns.js';
import { unfinishedExitCode, unfinishedSummary } from './unfinished-trials.js';
import { progressView, type ViewStream } from './views.js';

export interface DriveOptions {
  /** Seconds running turns get to finish after the first Ctrl-C. */
  graceSeconds: number;
  /** Progress and notices (default: stderr). */
  stream?: ViewStream;
  /** What reporters print (default: stdout). */
  out?: ViewStream;
}

/** Exit code of a run the user stopped (128 + SIGINT), as shells report it. */
export const cancelledExitCode = 130;

/**
 * Runs `start` with a progress view and signal handling, and turns its result into an exit
 * code. First Ctrl-C (SIGINT): no new trials or turns, running turns and scoring get the grace
 * period, then they are aborted; second Ctrl-C: abort now; third: exit. SIGTERM aborts at once
 * (a second one exits). Whatever an abort cuts short ends `cancelled` and is run again by
 * `resume`; a step whose turn and scoring finished in the grace period is complete. Exit codes:
 * 130 for a stopped run, 1 when a reporter or experiment scorer failed, 3 when a trial ended
 * `error:<class>` or `cancelled` (with a line saying how many and why), else 0.
 */
export async function driveRun(
  start: (hooks: Pick<RunOptions, 'onEvent' | 'print' | 'width' | 'cancellation'>) => Promise<RunResult>,
  options: DriveOptions,
): Promise<number> {
  const stream = options.stream ?? process.stderr;
  const out = options.out ?? process.stdout;
  const view = progressView(stream, out);
  const cancellation = new RunCancellation();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      view.notice(
        `stopping: no new trials; running turns and scoring get ${options.graceSeconds}s to finish (Ctrl-C again to abort them now)`,
      );
      cancellation.stop(options.graceSeconds * 1000);
    } else if (interrupts === 2) {
      view.notice('aborting running turns (Ctrl-C again to quit at once)');
      cancellation.abort();
    } else {
      // Everything the run waits on is bounded, but the user has the last word.
      view.close();
      process.exit(cancelledExitCode);
    }
  };
  let terminations = 0;
  const onSigterm = () => {
    terminations++;
    if (terminations === 1) {
      view.notice('terminating: running turns and scoring are aborted (SIGTERM again to quit at once)');
      cancellation.abort();
    } else {
      view.close();
      process.exit(cancelledExitCode);
    }
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  let result: RunResult;
  try {
    result = await start({
      cancellation,
      onEvent: (event) => view.onEvent(event),
      print: (text) => view.print(text),
      width: terminalWidth(out),
    });
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    view.close();
  }
  for (const error of result.errors) stream.write(`error: ${error}\n`);
  stream.write(`run directory: ${result.runDir}\n`);
  if (result.status === 'cancelled') {
    stream.write(`stopped; continue with: longhaul resume ${result.runDir}\n`);
    return cancelledExitCode;
  }
  const unfinished = unfinishedSummary(
    result.trials.map((trial) => trial.record),
    result.runDir,
  );
  if (unfinished !== undefined) stream.write(`${unfinished}\n`);
  if (result.status !== 'ok') return 1;
  return unfinished === undefined ? 0 : unfinishedExitCode;
}
