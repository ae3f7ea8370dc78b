import { z } from 'zod';
import type { SemanticRecord, SemanticStore } from './records.js';
import { renderSkeleton, type Skeleton } from './structural.js';

export const forecastSchema = z.object({
  purpose: z.string().describe('What the current request is most likely for, in the project'),
  commitments: z.array(z.string()).describe('Ids of the records the request must respect'),
  modules: z
    .array(
      z.object({
        path: z.string(),
        action: z.enum(['keep', 'revise']).describe('keep: reuse unchanged; revise: change it in place'),
        why: z.string(),
      }),
    )
    .describe('Existing files the request touches or must reuse'),
  approach: z
    .enum(['revise', 'reimplement', 'new'])
    .describe('Revise existing modules compatibly, reimplement, or write new code'),
  constraints: z.array(z.string()).describe('Interfaces and repository constraints to respect'),
  restart: z
    .boolean()
    .describe('Whether the live session is unlikely to hold enough context for this request'),
});
export type Forecast = z.output<typeof forecastSchema>;

export const forecasterSystemPrompt = `You prepare a coding agent for its next request in a long-running project. You see the request, the user's earlier requests, the project's committed records (design, decision, resource) and the repository's skeleton (files, classes, function signatures).

Work out the likely purpose of the request in the context of the project, which committed records it must respect (give their ids), which existing modules it should reuse or revise in place rather than reimplement, and which interfaces it must keep compatible. Set restart when the request needs broad integration work and the agent's remaining context (given) looks too small for it.`;

export function forecasterPrompt(
  request: string,
  prior: string[],
  store: SemanticStore,
  skeleton: Skeleton,
  freeShare: number,
): string {
  const records = store.records
    .filter((record) => record.status !== 'superseded')
    .map((record) => `- ${record.id} [${record.type}] ${record.title}: ${record.body}`);
  return [
    'Current request:',
    request,
    '',
    'Earlier requests (oldest first):',
    prior.length
      ? prior.map((text, index) => `${index + 1}. ${text.replace(/\s+/g, ' ').trim()}`).join('\n')
      : '(none)',
    '',
    'Records:',
    records.join('\n') || '(none)',
    '',
    'Repository skeleton:',
    renderSkeleton(skeleton) || '(empty)',
    '',
    `Free share of the agent's context window: ${Math.round(freeShare * 100)}%`,
  ].join('\n');
}

const stopWords = new Set([
  'the',
  'and',
  'for',
  'with',
  'that',
  'this',
  'from',
  'into',
  'should',
  'make',
  'have',
  'what',
  'when',
  'then',
  'them',
  'only',
  'also',
]);

function words(text: string): Set<string> {
  return new Set(
    (text.toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []).filter((word) => !stopWords.has(word)),
  );
}

/** Records ranked by the words they share with the request: the brief when the forecaster fails. */
export function lexicalForecast(
  request: string,
  store: SemanticStore,
  skeleton: Skeleton,
  limit: number,
): Forecast {
  const wanted = words(request);
  const score = (text: string) => [...words(text)].filter((word) => wanted.has(word)).length;
  const commitments = store.records
    .filter((record) => record.status !== 'superseded')
    .map((record) => ({ record, score: score(`${record.title} ${record.body}`) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((entry) => entry.record.id);
  const modules = Object.entries(skeleton)
    .map(([path, file]) => ({ path, score: score(`${path} ${file.publicSymbols.join(' ')}`) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((entry) => ({ path: entry.path, action: 'keep' as const, why: 'shares names with the request' }));
  return {
    purpose:
      'Not forecast (the forecaster failed); commitments chosen by the words they share with the request.',
    commitments,
    modules,
    approach: modules.length ? 'revise' : 'new',
    constraints: [],
    restart: false,
  };
}

function recordLine(record: SemanticRecord): string {
  return `- ${record.id} (${record.type}) ${record.title}: ${record.body.replace(/\s+/g, ' ').trim()}`;
}

const approachText = {
  revise:
    'Revise the existing modules in place and keep their interfaces compatible; do not reimplement them.',
  reimplement: 'Reimplementing is acceptable here; keep the interfaces other modules use.',
  new: 'This is new code; reuse existing modules where they already do part of the work.',
};

/** The task brief the agent gets before the request. */
export function renderTaskBrief(forecast: Forecast, store: SemanticStore, limit: number): string {
  const commitments = forecast.commitments
    .map((id) => store.get(id))
    .filter((record): record is SemanticRecord => record !== undefined && record.status !== 'superseded')
    .slice(0, limit);
  const lines = ['## Project brief', '', `Purpose of this request: ${forecast.purpose}`];
  if (commitments.length) lines.push('', 'Commitments to respect:', ...commitments.map(recordLine));
  if (forecast.modules.length)
    lines.push('', 'Modules:', ...forecast.modules.map((m) => `- ${m.action} ${m.path}: ${m.why}`));
  lines.push('', `Approach: ${approachText[forecast.approach]}`);
  if (forecast.constraints.length)
    lines.push('', 'Constraints:', ...forecast.constraints.map((c) => `- ${c}`));
  return lines.join('\n');
}

/** Everything ProjectGuard knows, for a fresh session after a proactive restart. */
export function renderProjectBrief(store: SemanticStore, skeleton: Skeleton): string {
  const active = store.records.filter((record) => record.status !== 'superseded');
  const section = (type: string, title: string) => {
    const records = active.filter((record) => record.type === type);
    return records.length ? ['', `${title}:`, ...records.map(recordLine)] : [];
  };
  return [
    '## Project state (this is a fresh session of an ongoing project)',
    ...section('design', 'Design'),
    ...section('decision', 'Decisions'),
    ...section('resource', 'Resources and open questions'),
    '',
    'Repository skeleton:',
    renderSkeleton(skeleton) || '(empty)',
  ].join('\n');
}
