import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@longhaul/core';
import type { Backend, BackendResult, CallContext } from '../backends/backend.js';
import { GatewayError } from '../errors.js';
import { type ModelReply, type ModelRequest, messageText } from '../model.js';
import { primaryWorkingDir } from '../working-dir.js';
import { requestKey } from './key.js';
import { type RecordedExchange, recordingFile } from './recording.js';

/** The recording file `from` names: the file itself, or a run directory's recording. */
export async function recordingPath(from: string): Promise<string> {
  return (await stat(from).catch(() => undefined))?.isDirectory() ? join(from, recordingFile) : from;
}

export async function loadRecording(from: string): Promise<RecordedExchange[]> {
  const file = await recordingPath(from);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([
      {
        file,
        message: `cannot read the recording to replay: ${(error as NodeJS.ErrnoException).code ?? error}`,
      },
    ]);
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as RecordedExchange;
      } catch {
        throw new ConfigError([{ file, line: index + 1, message: 'not a recorded exchange (invalid JSON)' }]);
      }
    });
}

/**
 * Serves a recording offline. A request gets the next unused answer recorded under its key, from
 * the same trial when the recording has that trial, else from any trial; the answer is the
 * provider's own bytes when the request asks in the recorded API and mode, else re-rendered.
 */
export class ReplayBackend implements Backend {
  private readonly used = new Map<string, number>();
  private readonly trials: Set<string>;

  constructor(
    private readonly exchanges: RecordedExchange[],
    private readonly source: string,
    private readonly ignore: RegExp[],
  ) {
    this.trials = new Set(exchanges.map((exchange) => exchange.trial));
  }

  async complete(request: ModelRequest, context: CallContext): Promise<BackendResult> {
    const key = requestKey(request, this.ignore);
    const sameTrial = this.trials.has(context.trialId);
    const slot = `${sameTrial ? context.trialId : '*'}\u0000${key}`;
    const index = this.used.get(slot) ?? 0;
    const candidates = this.exchanges.filter(
      (e) => e.key === key && (!sameTrial || e.trial === context.trialId),
    );
    const exchange = candidates[index];
    if (!exchange) {
      const last = messageText(request.messages.at(-1)).slice(0, 200);
      throw new GatewayError(
        400,
        'replay',
        `replay (${this.source}): no recorded answer for request ${key} of trial ${context.trialId} ` +
          `(model ${request.model}, ${request.messages.length} messages, last: ${JSON.stringify(last)}); ` +
          (candidates.length > 0
            ? `its ${candidates.length} recorded answer(s) are used up`
            : `the recording has ${this.exchanges.length} exchanges, none with this key`),
      );
    }
    this.used.set(slot, index + 1);
    // Recorded answers name the recording agent's working directory (absolute paths in tool
    // calls); the replaying agent works elsewhere when its sandbox is a fresh temporary directory.
    const cwd = primaryWorkingDir(request);
    const relocate = (text: string) =>
      exchange.cwd && cwd && exchange.cwd !== cwd ? text.split(exchange.cwd).join(cwd) : text;
    if (exchange.api === request.api && exchange.stream === request.stream) {
      const body = Buffer.from(relocate(exchange.response.body), 'utf8');
      return {
        kind: 'raw',
        status: exchange.response.status,
        contentType: exchange.response.contentType,
        body: (async function* () {
          yield body;
        })(),
      };
    }
    const reply = JSON.parse(relocate(JSON.stringify(exchange.reply))) as ModelReply;
    return { kind: 'reply', reply: { ...reply, model: request.model } };
  }
}
