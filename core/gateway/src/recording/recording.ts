import type { Api, ModelReply } from '../model.js';

/** One line of `<runDir>/gateway/recording.jsonl`. */
export interface RecordedExchange {
  key: string;
  trial: string;
  model: string;
  api: Api;
  stream: boolean;
  at: string;
  /** The agent's working directory, replaced by the replaying agent's own in the answer. */
  cwd?: string;
  /** Enough of the request to recognise it: message count and the last message's text. */
  request: { messages: number; last: string };
  reply: ModelReply;
  /** The provider's response as the caller received it. */
  response: { status: number; contentType: string; body: string };
}

export const recordingFile = 'gateway/recording.jsonl';
