import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import type { ModelRequest, Part } from '../model.js';
import { workingDirs } from '../working-dir.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What differs between two runs of the same conversation and must not change its key: ids,
 * dates and times, durations, and the random part of temporary directories.
 */
const volatile: [RegExp, string][] = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  // Codex numbers the output chunks and sessions of its exec_command tool at random.
  [/\b(Chunk ID|session ID):? [0-9a-zA-Z]+/g, '$1 <id>'],
  [/\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g, '<date>'],
  [/\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AP]M)?\b/g, '<time>'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|secs)\b/g, '<duration>'],
  // Tool results in JSON (the ide harness's) give durations as numbers under a key naming the unit.
  [/("\w*(?:duration|elapsed)\w*"\s*:\s*)\d+(?:\.\d+)?/gi, '$1<duration>'],
  [
    new RegExp(
      `(${[...new Set([tmpdir(), '/tmp', '/var/folders'])].map(escapeRegExp).join('|')})/[^/\\s'"\`]+`,
      'g',
    ),
    '<tmp>',
  ],
];

/**
 * Blanks the volatile parts of a text: the working directories given, ids, dates, times,
 * durations, temporary paths, plus whatever the experiment's `ignore` patterns match.
 */
export function scrub(text: string, ignore: RegExp[] = [], dirs: string[] = []): string {
  let out = text;
  for (const dir of dirs) out = out.split(dir).join('<cwd>');
  for (const [pattern, replacement] of volatile) out = out.replace(pattern, replacement);
  for (const pattern of ignore) out = out.replace(pattern, '');
  return out;
}

function part(value: Part, ignore: RegExp[], dirs: string[]): unknown {
  if (value.type === 'text') return ['text', scrub(value.text, ignore, dirs)];
  if (value.type === 'tool_call')
    return ['call', value.name, scrub(JSON.stringify(value.input), ignore, dirs)];
  return ['result', scrub(value.content, ignore, dirs), value.isError === true];
}

/**
 * The key a request is recorded and replayed under: the model, the names of the tools offered
 * and the conversation, with ids, the working directory and other volatile text blanked. The system prompt is left out: agent
 * CLIs put the date, the working directory and their own version in it.
 */
export function requestKey(request: ModelRequest, ignore: RegExp[] = []): string {
  const dirs = workingDirs(request);
  const shape = {
    model: request.model,
    tools: request.tools.map((tool) => tool.name).sort(),
    messages: request.messages.map((message) => [
      message.role,
      message.content
        .filter((p) => !(p.type === 'text' && p.text.trim() === ''))
        .map((p) => part(p, ignore, dirs)),
    ]),
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 32);
}
