import type { TurnFocus } from '@longhaul/core';
import type { ModelReply, ModelRequest } from '../model.js';

export interface CallContext {
  trialId: string;
  /** The model name the caller asked for (a key of `models:`). */
  modelName: string;
  /** The trial's current turn, when the kernel has set one with `focus()`. */
  focus?: TurnFocus;
  signal: AbortSignal;
}

/** A provider's own response, forwarded byte for byte (same API on both sides). */
export interface RawResult {
  kind: 'raw';
  status: number;
  contentType: string;
  body: AsyncIterable<Uint8Array>;
}

export type BackendResult = { kind: 'reply'; reply: ModelReply } | RawResult;

export interface Backend {
  complete(request: ModelRequest, context: CallContext): Promise<BackendResult>;
  /** Input tokens of a request as the provider counts them; the gateway estimates when absent. */
  countTokens?(request: ModelRequest, context: CallContext): Promise<number | undefined>;
  /** The file the backend's answers come from (scripted replies, a recording), as read. */
  input?: ModelInput;
}

/** A file a model answers from and the sha256 of its bytes, so a resume can tell it changed. */
export interface ModelInput {
  file: string;
  sha256: string;
}

/** Passes a body through while collecting it, and hands the whole text over at the end. */
export async function* tee(
  body: AsyncIterable<Uint8Array>,
  done: (text: string) => void,
): AsyncIterable<Uint8Array> {
  const seen: Buffer[] = [];
  for await (const chunk of body) {
    seen.push(Buffer.from(chunk));
    yield chunk;
  }
  done(Buffer.concat(seen).toString('utf8'));
}
