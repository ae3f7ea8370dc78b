import { createOpenAI } from '@ai-sdk/openai';
import { ClassifiedError, type ModelGateway } from '@longhaul/core';
import type { LanguageModel } from 'ai';

/** A model of the run's gateway for in-process calls on behalf of a trial (Chat Completions). */
export async function gatewayModel(
  gateway: ModelGateway | undefined,
  trialId: string,
  model: string,
  who: string,
): Promise<LanguageModel> {
  if (!gateway)
    throw new ClassifiedError(
      'config',
      `${who}: no model gateway runs; add the model '${model}' under the experiment's models:`,
    );
  const endpoint = await gateway.endpoint(trialId, '127.0.0.1', model);
  return createOpenAI({ baseURL: `${endpoint.hostBaseUrl}/v1`, apiKey: endpoint.token }).chat(model);
}
