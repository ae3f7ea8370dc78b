import type { Api } from '../model.js';
import { anthropicCodec } from './anthropic.js';
import { chatCodec } from './chat.js';
import type { ApiCodec } from './codec.js';
import { responsesCodec } from './responses.js';

export const codecs: Record<Api, ApiCodec> = {
  anthropic: anthropicCodec,
  responses: responsesCodec,
  chat: chatCodec,
};
