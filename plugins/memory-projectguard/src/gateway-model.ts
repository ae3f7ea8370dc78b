import { createOpenAI } from '@ai-sdk/openai';
import { ClassifiedError, type ModelGateway } from '@longhaul/core';
import { generateText, type LanguageModel, Output } from 'ai';
import type { z } from 'zod';

async function gatewayModel(
  gateway: ModelGateway | undefined,
  trialId: string,
  model: string,
): Promise<LanguageModel> {
  if (!gateway)
    throw new ClassifiedError(
      'config',
      `memory projectguard: no model gateway runs; add the model '${model}' under the experiment's models:`,
    );
  const endpoint = await gateway.endpoint(trialId, '127.0.0.1', model);
  return createOpenAI({ baseURL: `${endpoint.hostBaseUrl}/v1`, apiKey: endpoint.token }).chat(model);
}

/** One structured call of a gateway model on behalf of a trial. */
export async function askModel<S extends z.ZodType>(
  gateway: ModelGateway | undefined,
  trialId: string,
  model: string,
  system: string,
  prompt: string,
  schema: S,
): Promise<z.output<S>> {
  const result = await generateText({
    model: await gatewayModel(gateway, trialId, model),
    system,
    prompt,
    output: Output.object({ schema }),
    temperature: 0,
    maxRetries: 2,
  });
  return result.output as z.output<S>;
}
