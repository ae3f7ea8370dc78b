import { join } from 'node:path';
import type { Logger } from '@longhaul/core';
import { codecs } from '../api/codecs.js';
import { type Backend, type BackendResult, type CallContext, tee } from '../backends/backend.js';
import { JsonlFile } from '../jsonl.js';
import { type ModelRequest, messageText, zeroCounts } from '../model.js';
import { primaryWorkingDir } from '../working-dir.js';
import { requestKey } from './key.js';
import { type RecordedExchange, recordingFile } from './recording.js';

/** Gateway tokens look like this; an agent may echo its environment into a tool result. */
const gatewayToken = /lh-[0-9a-f]{48}/g;

/** Appends exchanges to the run's recording, one JSON line each, with every secret blanked. */
export class Recorder {
  private readonly out: JsonlFile;

  constructor(
    runDir: string,
    private readonly secrets: string[],
    log?: Logger,
  ) {
    this.out = new JsonlFile(join(runDir, recordingFile), log);
  }

  get file(): string {
    return this.out.file;
  }

  addSecret(secret: string): void {
    this.secrets.push(secret);
  }

  append(exchange: RecordedExchange): void {
    this.out.append(exchange, (line) => {
      let out = line.replace(gatewayToken, '[redacted]');
      for (const secret of this.secrets) if (secret) out = out.split(secret).join('[redacted]');
      return out;
    });
  }

  /** Resolves once every appended exchange is on disk. */
  flush(): Promise<void> {
    return this.out.flush();
  }
}

/** Passthrough plus a recording of every successful exchange. */
export class RecordBackend implements Backend {
  constructor(
    private readonly upstream: Backend,
    private readonly recorder: Recorder,
  ) {}

  async complete(request: ModelRequest, context: CallContext): Promise<BackendResult> {
    const result = await this.upstream.complete(request, context);
    const save = (reply: RecordedExchange['reply'], response: RecordedExchange['response']) =>
      this.recorder.append({
        key: requestKey(request),
        trial: context.trialId,
        model: request.model,
        api: request.api,
        stream: request.stream,
        at: new Date().toISOString(),
        cwd: primaryWorkingDir(request),
        request: {
          messages: request.messages.length,
          last: messageText(request.messages.at(-1)).slice(0, 500),
        },
        reply,
        response,
      });
    if (result.kind === 'reply') {
      const codec = codecs[request.api];
      const body = request.stream
        ? codec.renderStream(result.reply, request).join('')
        : JSON.stringify(codec.renderReply(result.reply, request));
      save(result.reply, {
        status: 200,
        contentType: request.stream ? 'text/event-stream' : 'application/json',
        body,
      });
      return result;
    }
    if (result.status >= 300) return result;
    return {
      ...result,
      body: tee(result.body, (text) => {
        const response = { status: result.status, contentType: result.contentType, body: text };
        let reply: RecordedExchange['reply'];
        try {
          reply = codecs[request.api].parseReply(text, request.stream);
        } catch {
          // Kept anyway: replay serves the bytes as they came, whatever they were.
          reply = { model: request.model, content: [], stopReason: 'end', usage: zeroCounts() };
        }
        save(reply, response);
      }),
    };
  }
}
