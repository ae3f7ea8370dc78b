import { Worker } from 'node:worker_threads';

/** The job's time limit passed; the worker was stopped. */
export class OffThreadTimeout extends Error {
  constructor(readonly ms: number) {
    super(`still running after ${ms} ms`);
  }
}

/**
 * Runs `job(input)` in a worker thread and resolves with what it returns. The job may run as long
 * as it likes without holding the runner's event loop: at `timeoutMs`, or when `signal` aborts,
 * the thread is stopped (V8 interrupts even a backtracking regular expression) and the promise
 * rejects (OffThreadTimeout, or the signal's reason).
 *
 * `job` is sent as its source text, so it must be self-contained: no imports, no closures, only
 * what it declares inside itself and JavaScript's globals (that is also what keeps it from
 * reaching the sandbox or the runner's state).
 */
export function runOffThread<Input, Output>(
  job: (input: Input) => Output,
  input: Input,
  options: { timeoutMs: number; signal: AbortSignal; heapMb: number },
): Promise<Output> {
  if (options.signal.aborted) return Promise.reject(options.signal.reason);
  // `__name`: what a transpiler that keeps function names may have put inside the job's text.
  const source = `const { parentPort, workerData } = require('node:worker_threads');
var __name = (target) => target;
parentPort.postMessage((${job.toString()})(workerData));`;
  const worker = new Worker(source, {
    eval: true,
    workerData: input,
    resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
    stdout: true,
    stderr: true,
  });
  return new Promise<Output>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      settle();
    };
    const timer = setTimeout(
      () => finish(() => reject(new OffThreadTimeout(options.timeoutMs))),
      options.timeoutMs,
    );
    const onAbort = () => finish(() => reject(options.signal.reason));
    options.signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (output: Output) => finish(() => resolve(output)));
    worker.once('error', (error) => finish(() => reject(error)));
    worker.once('exit', (code) =>
      finish(() => reject(new Error(`the search thread ended (exit code ${code}) without an answer`))),
    );
  });
}
