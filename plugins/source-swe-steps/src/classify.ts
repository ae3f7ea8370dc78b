import { createOpenAI } from '@ai-sdk/openai';
import type { ModelGateway } from '@longhaul/core';
import { generateText } from 'ai';
import { categories, type PrRecord } from './dataset.js';

export interface Classification {
  category?: PrRecord['category'];
  classification?: PrRecord['classification'];
  /** Why no category was recorded, when the reply could not be used. */
  problem?: string;
}

/** Our wording of the classifier's intent: one of six kinds of change, from the PR's own texts. */
export function classifierPrompt(pr: Pick<PrRecord, 'commit_id' | 'all_texts' | 'changed_files'>): string {
  return [
    'Sort one merged pull request into the kind of change it mainly is, using only its texts and the files it touched.',
    '',
    `Commit: ${pr.commit_id}`,
    `Title: ${pr.all_texts.title}`,
    `Description: ${pr.all_texts.body || '(none)'}`,
    ...(pr.all_texts.issues.length > 0 ? [`Linked issues:\n${pr.all_texts.issues.join('\n\n')}`] : []),
    `Files changed: ${pr.changed_files.join(', ')}`,
    '',
    'Kinds:',
    '- Feature/Enhancement: new behaviour, better performance or security',
    '- Bug Fix: wrong behaviour corrected, a reported issue resolved',
    '- Maintenance: refactoring, clean-up, dependency updates',
    '- Infrastructure: build, CI or configuration',
    '- Documentation: documentation only',
    '- Testing: tests added or changed',
    '',
    'Answer with one JSON object and nothing else:',
    '{"category": "<one kind, spelt as above>", "explanation": "<one sentence>", "confidence": "High|Medium|Low", "keywords": ["<words of the texts that decided it>"]}',
  ].join('\n');
}

/** The category of one PR from a model of the gateway; a reply that names no known kind records none. */
export async function classifyPr(
  gateway: ModelGateway,
  model: string,
  pr: Pick<PrRecord, 'commit_id' | 'all_texts' | 'changed_files'>,
): Promise<Classification> {
  const endpoint = await gateway.endpoint('swe-steps-mine', '127.0.0.1', model);
  const chat = createOpenAI({ baseURL: `${endpoint.hostBaseUrl}/v1`, apiKey: endpoint.token }).chat(model);
  const reply = await generateText({ model: chat, prompt: classifierPrompt(pr), temperature: 0 });
  const json = /\{[\s\S]*\}/.exec(reply.text)?.[0];
  let parsed: Record<string, unknown> = {};
  try {
    parsed = json ? (JSON.parse(json) as Record<string, unknown>) : {};
  } catch {
    return { problem: `the reply is not JSON: ${reply.text.slice(0, 80)}` };
  }
  const category = categories.find(
    (name) => name.toLowerCase() === String(parsed.category ?? '').toLowerCase(),
  );
  if (!category) return { problem: `the reply names no known category: ${String(parsed.category)}` };
  return {
    category,
    classification: {
      model,
      explanation: String(parsed.explanation ?? ''),
      confidence: String(parsed.confidence ?? ''),
      keywords: Array.isArray(parsed.keywords) ? parsed.keywords.map(String) : [],
    },
  };
}
