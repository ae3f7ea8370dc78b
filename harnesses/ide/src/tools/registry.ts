import { ClassifiedError, closest, schemaIssues, type ToolInputIssue } from '@longhaul/core';
import { tool as aiTool, jsonSchema, type Tool } from 'ai';
import { z } from 'zod';
import type { IdeOptions } from '../options.js';
import { pythonJson } from '../upstream/json.js';
import { upstreamTools } from '../upstream/tools.js';
import { editFile, searchReplace } from './edit.js';
import { createDirectory, deleteFile, listDir, readFile, writeFile } from './files.js';
import { apiCall, databaseQuery, websocketTest } from './fullstack.js';
import {
  fullStackTools,
  type PaperToolName,
  toolNames,
  type UpstreamToolName,
  unavailableTools,
  upstreamToolNames,
} from './names.js';
import { editNotebook } from './notebook.js';
import { ToolRefusal } from './policy.js';
import { codebaseSearch, fileSearch, grepSearch } from './search.js';
import { runTerminalCmd } from './terminal.js';
import { fail, formatResult, type IdeTool, type ToolContext, type ToolResult } from './tool.js';
import { createDiagram, uiTest, webSearch } from './unavailable.js';

/** The paper profile's tools by name. */
export const allTools: Record<PaperToolName, IdeTool> = {
  read_file: readFile,
  list_dir: listDir,
  codebase_search: codebaseSearch,
  grep_search: grepSearch,
  file_search: fileSearch,
  edit_file: editFile,
  search_replace: searchReplace,
  write_file: writeFile,
  delete_file: deleteFile,
  create_directory: createDirectory,
  run_terminal_cmd: runTerminalCmd,
  edit_notebook: editNotebook,
  api_call: apiCall,
  database_query: databaseQuery,
  websocket_test: websocketTest,
  web_search: webSearch,
  create_diagram: createDiagram,
  ui_test: uiTest,
};

const explanationText =
  'One sentence explanation as to why this tool is being used, and how it contributes to the goal.';

/** A task's tags, from its metadata (a list, or a string of words). */
export function taskTags(metadata: Record<string, unknown> | undefined): string[] {
  const tags = metadata?.tags;
  return Array.isArray(tags) ? tags.map(String) : typeof tags === 'string' ? tags.split(/[\s,[\]]+/) : [];
}

/**
 * The tools a session knows, from the options, the task's tags and the experiment's extra tools:
 * those it offers the model and, with profile upstream, the two its dispatcher answers unoffered.
 * Profile paper offers the full-stack tools to tasks tagged mern or full-stack only (`fullStack`)
 * and the unavailable ones only when named; upstream offers its sixteen to every task, as
 * harness.py sends `tools_info` on every call.
 */
export function offeredTools(
  options: IdeOptions,
  tags: readonly string[],
  extra: readonly IdeTool[] = [],
): IdeTool[] {
  if (options.profile === 'upstream') {
    const names = (options.tools as UpstreamToolName[] | undefined) ?? upstreamToolNames;
    return [
      ...names.filter((name) => !options.excludeTools.includes(name)).map((name) => upstreamTools[name]),
      ...extra,
    ];
  }
  const fullStack =
    options.fullStack === 'on' ||
    (options.fullStack === 'auto' && tags.some((tag) => /^(mern|full-?stack)$/i.test(tag)));
  const base =
    (options.tools as PaperToolName[] | undefined) ??
    toolNames.filter(
      (name) => !unavailableTools.includes(name) && (fullStack || !fullStackTools.includes(name)),
    );
  return [
    ...base.filter((name) => !options.excludeTools.includes(name)).map((name) => allTools[name]),
    ...extra,
  ];
}

/**
 * One tool's input schema: with `explanation` added (required or not, as the options say), unless
 * the tool declares its own schema (profile upstream), where its input is taken as it is.
 */
export function inputSchema(tool: IdeTool, options: IdeOptions): z.ZodObject {
  if (tool.advertised) return tool.input;
  const explanation = z.string().describe(explanationText);
  return tool.input.extend({
    explanation: options.explanation === 'required' ? explanation : explanation.optional(),
  });
}

/**
 * AI SDK tool definitions without `execute` (the loop runs calls itself, in order, and records
 * them): the schema the tool declares, else the one its input makes. Unlisted tools are left out.
 */
export function aiTools(tools: readonly IdeTool[], options: IdeOptions): Record<string, Tool> {
  return Object.fromEntries(
    tools
      .filter((tool) => !tool.unlisted)
      .map((tool) => {
        const schema = (tool.advertised ??
          z.toJSONSchema(inputSchema(tool, options), { io: 'input' })) as Parameters<typeof jsonSchema>[0];
        return [tool.name, aiTool({ description: tool.description, inputSchema: jsonSchema(schema) })];
      }),
  );
}

/** The text the model gets for a result: the paper profile's (see formatResult), or upstream's `json.dumps`. */
export function resultText(result: ToolResult, options: IdeOptions): string {
  return options.profile === 'upstream' ? pythonJson(result) : formatResult(result);
}

/**
 * Whether a result counts as the change the completion guard waits for: any successful edit tool,
 * or with profile upstream only an edit_file that changed the file (harness.py sets
 * `made_code_changes` on nothing else).
 */
export function madeChange(name: string, result: ToolResult, options: IdeOptions): boolean {
  if (options.profile === 'upstream')
    return name === 'edit_file' && result.success && 'changes_made' in result;
  return result.success && editTools.has(name);
}

const editTools = new Set(['edit_file', 'search_replace', 'write_file', 'delete_file', 'edit_notebook']);

/**
 * What is wrong with `input` as the arguments of `tool`, as `runTool` finds it, and also keys the
 * tool does not take (which it would drop without a word): for checking a scripted model's calls
 * before a run.
 */
export function checkToolInput(tool: IdeTool, options: IdeOptions, input: unknown): ToolInputIssue[] {
  const schema = inputSchema(tool, options);
  const value = decodeArguments(input) ?? {};
  const given = value !== null && typeof value === 'object' ? Object.keys(value) : [];
  return schemaIssues(schema, value).issues.map((issue) => {
    const last = issue.path.at(-1);
    const suggestion =
      issue.suggestion ??
      (issue.known && typeof last === 'string'
        ? (closest(last, issue.known) ?? (issue.path.length === 1 ? renamed(last, schema, given) : undefined))
        : undefined);
    return { path: issue.path, message: issue.message, ...(suggestion ? { suggestion } : {}) };
  });
}

/**
 * The argument an unknown key most likely stands for, when one stands out: the only one not given
 * that holds its letters in order (`cmd` for `command`, `path` for `file_path`), else the only
 * required one not given. `explanation` is never the one.
 */
function renamed(key: string, schema: z.ZodObject, given: string[]): string | undefined {
  const open = Object.keys(schema.shape).filter((name) => name !== 'explanation' && !given.includes(name));
  const inOrder = open.filter((name) => holdsInOrder(name.toLowerCase(), key.toLowerCase()));
  if (inOrder.length === 1) return inOrder[0];
  const required = open.filter((name) => !(schema.shape[name] as z.ZodType).safeParse(undefined).success);
  return required.length === 1 ? required[0] : undefined;
}

function holdsInOrder(text: string, letters: string): boolean {
  let at = 0;
  for (const letter of letters) {
    at = text.indexOf(letter, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

/** Arguments some providers send as a JSON string, sometimes twice encoded. */
function decodeArguments(input: unknown): unknown {
  let value = input;
  for (let i = 0; i < 3 && typeof value === 'string'; i++) {
    try {
      value = JSON.parse(value);
    } catch {
      break;
    }
  }
  return value;
}

/**
 * Runs one tool call. Bad arguments, unknown tools, refusals and tool errors become error results
 * the model can act on; only an abort, or a sandbox that no longer answers, escapes.
 */
export async function runTool(
  name: string,
  rawInput: unknown,
  offered: readonly IdeTool[],
  ctx: ToolContext,
): Promise<ToolResult> {
  const tool = offered.find((candidate) => candidate.name === name);
  const upstream = ctx.options.profile === 'upstream';
  // Upstream's dispatcher answers an unknown name and arguments that are not JSON without `success`.
  if (!tool && upstream) return { error: `Unknown function: ${name}` } as unknown as ToolResult;
  if (!tool)
    return fail(
      `Unknown tool: ${name}. Available: ${offered
        .filter((t) => !t.unlisted)
        .map((t) => t.name)
        .join(', ')}`,
    );
  const decoded = decodeArguments(rawInput);
  if (upstream && typeof decoded === 'string')
    return { error: `Invalid JSON in tool arguments: ${decoded.slice(0, 200)}` } as unknown as ToolResult;
  const parsed = inputSchema(tool, ctx.options).safeParse(decoded ?? {});
  if (!parsed.success)
    return fail(`Invalid arguments for ${name}: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`);
  try {
    return await tool.run(parsed.data, ctx);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (error instanceof ToolRefusal) return fail(error.message, error.extra);
    if (error instanceof ClassifiedError && error.errorClass === 'sandbox') {
      const alive = await ctx.sandbox.list('.').then(
        () => true,
        () => false,
      );
      if (!alive) throw error;
    }
    return fail(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
