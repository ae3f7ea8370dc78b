export type { ApiCodec } from './api/codec.js';
export type { Backend, BackendResult, CallContext } from './backends/backend.js';
export { type CheckGatewayOptions, checkGatewayConfig, missingKeyMessage } from './check.js';
export {
  type GatewayConfig,
  type GatewayConfigInput,
  gatewayConfigSchema,
  type ModelConfig,
  modelSchema,
  modelsConfigSchema,
  type Price,
  priceSchema,
  pricesConfigSchema,
  scriptedReplySchema,
} from './config.js';
export { GatewayError } from './errors.js';
export { createGateway, type Gateway, type GatewayOptions } from './gateway.js';
export { costUsd, defaultPrices, estimateTokens, findPrice } from './metering.js';
export type { ModelMessage, ModelReply, ModelRequest, Part, TokenCounts, ToolSpec } from './model.js';
export { modelFromFlag, providerKeyVariables } from './model-flag.js';
export { requestKey } from './recording/key.js';
export { type RecordedExchange, recordingFile } from './recording/recording.js';
export { checkScriptedToolCalls } from './scripted-calls.js';
export type { RequestEntry } from './server.js';
