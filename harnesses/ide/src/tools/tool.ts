import type { Sandbox } from '@longhaul/core';
import type { z } from 'zod';
import type { IdeSettings } from '../options.js';
import type { BackgroundProcesses } from './background.js';
import { limits } from './limits.js';
import type { PathPolicy } from './policy.js';
import { readBounded, tooLargeToEdit } from './read.js';
import type { SyntaxChecker } from './syntax.js';

/**
 * What a tool returns: IDE-Bench's shape, `success` plus fields; serialized as JSON for the model.
 * `error` is text in the paper profile's results; upstream's carry a body or null there too.
 */
export type ToolResult = { success: boolean; error?: unknown } & Record<string, unknown>;

export interface ToolContext {
  sandbox: Sandbox;
  policy: PathPolicy;
  options: IdeSettings;
  signal: AbortSignal;
  background: BackgroundProcesses;
  syntax: SyntaxChecker;
}

export interface IdeTool<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  /**
   * Parameters as the tool takes them. Without `advertised`, `explanation` is left out: the
   * registry adds it to every tool, as the paper's harness has it.
   */
  input: Input;
  /**
   * The JSON Schema of the parameters the model is shown, when it is not the one `input` makes:
   * the released harness's declared schemas (their own `explanation` and `required` lists), while
   * `input` says what its dispatcher actually needs.
   */
  advertised?: Record<string, unknown>;
  /** Answered when called but never offered (the released harness's create_directory, list_files). */
  unlisted?: boolean;
  run(input: z.output<Input>, ctx: ToolContext): Promise<ToolResult>;
}

export function defineTool<Input extends z.ZodObject>(tool: IdeTool<Input>): IdeTool {
  return tool as unknown as IdeTool;
}

export function fail(error: string, extra: Record<string, unknown> = {}): ToolResult {
  return { success: false, error, ...extra };
}

export function decode(data: Uint8Array): string {
  return Buffer.from(data).toString('utf8');
}

export function isBinary(data: Uint8Array): boolean {
  return data.subarray(0, 8000).includes(0);
}

/** Lines of a text without the trailing newline's empty last element. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * Reads a workspace text file an edit tool rewrites; undefined when it does not exist. One larger
 * than the edit tools work on is refused with a hint.
 */
export async function readText(ctx: ToolContext, rel: string, tool: string): Promise<string | undefined> {
  const read = await readBounded(ctx, rel, limits.editBytes);
  if ('size' in read) throw tooLargeToEdit(tool, rel, read.size, limits.editBytes);
  return 'data' in read ? decode(read.data) : undefined;
}

/**
 * The text the model (and the trajectory) gets for a result: JSON, except that command output
 * follows a JSON header line raw, as a terminal shows it, instead of escaped inside the JSON.
 */
export function formatResult(result: ToolResult): string {
  const { stdout, stderr, ...header } = result;
  if (typeof stdout !== 'string' && typeof stderr !== 'string') return JSON.stringify(result);
  const sections = [JSON.stringify(header)];
  if (typeof stdout === 'string') sections.push(`stdout:\n${stdout}`);
  if (typeof stderr === 'string' && stderr !== '') sections.push(`stderr:\n${stderr}`);
  return sections.join('\n');
}
