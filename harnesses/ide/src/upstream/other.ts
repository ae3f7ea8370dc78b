import { formatSize } from '@longhaul/core';
import { z } from 'zod';
import { boundedBody } from '../tools/fullstack.js';
import { limits } from '../tools/limits.js';
import { sandboxUrl } from '../tools/local-url.js';
import { defineTool, fail, readText } from '../tools/tool.js';
import { pythonJson } from './json.js';
import { explains, explanation, schema } from './schema.js';

/** Tools upstream declares but never implemented: they answer NotImplemented, echoing their arguments. */
const notImplemented = (what: string) => `NotImplemented: ${what} is not available in this environment`;

export const upstreamWebSearch = defineTool({
  name: 'web_search',
  description: 'Look up current information on the web about any topic.',
  input: z.object({ search_term: z.string(), explanation }),
  advertised: schema(
    {
      search_term: {
        type: 'string',
        description: 'What to search for, specific and with the keywords that matter.',
      },
      ...explains(),
    },
    ['search_term'],
  ),
  async run(input) {
    return fail(notImplemented('web search'), {
      search_term: input.search_term,
      explanation: input.explanation ?? '',
    });
  },
});

export const upstreamCreateDiagram = defineTool({
  name: 'create_diagram',
  description: 'Draw a Mermaid diagram, shown in the chat.',
  input: z.object({ content: z.string() }),
  advertised: schema(
    { content: { type: 'string', description: "The Mermaid definition, e.g. 'graph TD; A-->B;'." } },
    ['content'],
  ),
  async run(input) {
    return fail(notImplemented('diagram creation'), { content: input.content });
  },
});

export const upstreamUiTest = defineTool({
  name: 'ui_test',
  description: 'Check a frontend by acting in it like a user (click, type, navigate) and reading the page.',
  input: z.object({
    action: z.string(),
    selector: z.string().default(''),
    text: z.string().default(''),
    url: z.string().default(''),
    timeout: z.number().default(10),
    explanation,
  }),
  advertised: schema(
    {
      action: {
        type: 'string',
        enum: ['screenshot', 'click', 'type', 'navigate', 'wait_for_element', 'get_text'],
        description: 'What to do in the page',
      },
      selector: {
        type: 'string',
        description: 'CSS selector of the element (click, type, wait_for_element, get_text)',
      },
      text: { type: 'string', description: 'What to type (type)' },
      url: { type: 'string', description: 'The page to open (navigate)' },
      timeout: { type: 'number', description: 'Seconds to wait (10 by default)' },
      ...explains('what part of the interface is being checked'),
    },
    ['action', 'explanation'],
  ),
  async run(input) {
    return fail(notImplemented('UI testing'), {
      action: input.action,
      selector: input.selector,
      explanation: input.explanation ?? '',
    });
  },
});

interface Cell {
  cell_type: string;
  source: string | string[];
  [key: string]: unknown;
}

const codeLanguages = ['python', 'javascript', 'typescript', 'r', 'sql', 'shell'];

/**
 * Upstream's notebook edit (harness.py `edit_notebook`): a new cell's source is new_string split
 * at newlines (the lines lose their newline); an edit joins the cell's lines with newlines,
 * replaces every occurrence of old_string and splits again. The notebook is written back as
 * indented JSON.
 */
export const upstreamEditNotebook = defineTool({
  name: 'edit_notebook',
  description: 'Edit one cell of a Jupyter notebook, or add a cell.',
  input: z.object({
    target_notebook: z.string(),
    cell_idx: z.number().int(),
    is_new_cell: z.boolean(),
    cell_language: z.string(),
    old_string: z.string(),
    new_string: z.string(),
  }),
  advertised: schema(
    {
      target_notebook: { type: 'string', description: 'The notebook file to edit.' },
      cell_idx: { type: 'number', description: 'Index of the cell, from 0' },
      is_new_cell: {
        type: 'boolean',
        description: 'true: create a cell at cell_idx; false: edit the cell at cell_idx.',
      },
      cell_language: {
        type: 'string',
        description:
          "The cell's language, exactly one of 'python', 'markdown', 'javascript', 'typescript', 'r', 'sql', 'shell', 'raw' or 'other'.",
      },
      old_string: {
        type: 'string',
        description:
          'The text to replace: unique in the cell, matching it exactly, whitespace and indentation included.',
      },
      new_string: { type: 'string', description: 'The replacement text, or what the new cell holds.' },
    },
    ['target_notebook', 'cell_idx', 'is_new_cell', 'cell_language', 'old_string', 'new_string'],
  ),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.target_notebook);
    const before = await readText(ctx, rel, 'edit_notebook');
    if (before === undefined) return fail(`Failed to read notebook: ${input.target_notebook} does not exist`);
    let notebook: { cells?: Cell[] } & Record<string, unknown>;
    try {
      notebook = JSON.parse(before) as typeof notebook;
    } catch (error) {
      return fail(`Invalid notebook JSON: ${(error as Error).message}`);
    }
    if (notebook === null || typeof notebook !== 'object' || Array.isArray(notebook))
      return fail('Invalid notebook JSON: not an object');
    notebook.cells ??= [];
    const cells = notebook.cells;
    const language = input.cell_language;
    const type = codeLanguages.includes(language)
      ? 'code'
      : language === 'markdown' || language === 'raw'
        ? language
        : 'markdown';
    let message: string;
    if (input.is_new_cell) {
      const cell: Cell = {
        cell_type: type,
        metadata: {},
        source: input.new_string ? input.new_string.split('\n') : [''],
      };
      if (type === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
      const at = input.cell_idx < 0 ? Math.max(0, cells.length + input.cell_idx) : input.cell_idx;
      if (at <= cells.length) cells.splice(at, 0, cell);
      else cells.push(cell);
      message = `New ${type} cell at index ${input.cell_idx}`;
    } else {
      const cell = input.cell_idx < cells.length ? cells.at(input.cell_idx) : undefined;
      if (!cell)
        return fail(`Cell index ${input.cell_idx} is out of range: the notebook has ${cells.length} cells`);
      const current = Array.isArray(cell.source) ? cell.source.join('\n') : String(cell.source);
      if (!current.includes(input.old_string)) return fail(`Old string not found in cell ${input.cell_idx}`);
      cell.source = current.split(input.old_string).join(input.new_string).split('\n');
      message = `Cell ${input.cell_idx} edited`;
    }
    await ctx.sandbox.writeFile(rel, pythonJson(notebook, 2));
    return {
      success: true,
      message,
      target_notebook: input.target_notebook,
      cell_idx: input.cell_idx,
      cell_type: type,
      is_new_cell: input.is_new_cell,
      total_cells: cells.length,
    };
  },
});

/**
 * Upstream's HTTP tool (harness.py `api_call`): a relative URL goes to the API base, JSON is the
 * default content type, a body is sent with POST, PUT and PATCH only, 10 s time limit. A status
 * of 400 or more is a failure whose body is the error. Upstream calls from the harness's own
 * process; here the request reaches the sandbox's server through `expose`.
 */
export const upstreamApiCall = defineTool({
  name: 'api_call',
  description:
    'Send an HTTP request to an API endpoint of the app, to check the backend and its integration.',
  input: z.object({
    method: z.enum(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']),
    url: z.string(),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.record(z.string(), z.unknown()).optional(),
    explanation,
  }),
  advertised: schema(
    {
      method: {
        type: 'string',
        enum: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'],
        description: 'The HTTP method',
      },
      url: { type: 'string', description: "The endpoint, relative (e.g. '/api/users') or absolute" },
      headers: { type: 'object', description: 'Headers to send' },
      body: { type: 'object', description: 'The request body (POST, PUT, PATCH)' },
      ...explains('why this request is made'),
    },
    ['method', 'url', 'explanation'],
  ),
  async run(input, ctx) {
    const url = /^http/.test(input.url)
      ? input.url
      : `${ctx.options.apiBaseUrl}${input.url.startsWith('/') ? input.url : `/${input.url}`}`;
    const echo = { url, method: input.method, explanation: input.explanation ?? '' };
    const headers: Record<string, string> = { ...(input.headers ?? {}) };
    if (!('Content-Type' in headers)) headers['Content-Type'] = 'application/json';
    const withBody =
      input.body !== undefined &&
      Object.keys(input.body).length > 0 &&
      ['POST', 'PUT', 'PATCH'].includes(input.method);
    try {
      const target = await sandboxUrl(ctx, url, ctx.options.apiBaseUrl);
      const response = await fetch(target, {
        method: input.method,
        headers,
        body: withBody ? JSON.stringify(input.body) : undefined,
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(10_000)]),
      });
      const { text, cut } = await boundedBody(response, limits.responseBytes);
      let data: unknown = text;
      try {
        data = JSON.parse(text);
      } catch {}
      const truncated = cut
        ? {
            truncated: `the body is longer than ${formatSize(limits.responseBytes)}; only its start was read`,
          }
        : {};
      if (response.status >= 400)
        return { success: false, status_code: response.status, error: data, ...echo, ...truncated };
      return { success: true, status_code: response.status, data, ...echo, ...truncated };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      return fail(`API call failed: ${(error as Error).message}`, echo);
    }
  },
});

/** One upstream database operation as a mongosh script (the spec embedded as a literal). */
function mongoScript(spec: unknown): string {
  return `
const s = ${JSON.stringify(spec)};
const c = db.getCollection(s.collection);
const q = s.query || {};
let r;
switch (s.query_type) {
  case 'find': r = c.find(q).toArray(); break;
  case 'insert': r = { inserted_id: String(c.insertOne(s.data || {}).insertedId) }; break;
  case 'update': { const u = c.updateMany(q, { $set: s.data || {} }); r = { matched_count: u.matchedCount, modified_count: u.modifiedCount }; break; }
  case 'delete': r = { deleted_count: c.deleteMany(q).deletedCount }; break;
  case 'aggregate': r = c.aggregate(s.query || []).toArray(); break;
}
print(EJSON.stringify({ result: r }, { relaxed: true }));
`;
}

/**
 * Upstream's MongoDB tool (harness.py `database_query`, its pymongo branch): find returns the
 * documents, insert the new id, update `$set`s data on every match and returns the counts, delete
 * the count, aggregate runs `query` as the pipeline. Here it runs through mongosh in the sandbox.
 */
export const upstreamDatabaseQuery = defineTool({
  name: 'database_query',
  description:
    "Run a MongoDB operation on the app's database, to check that data is stored and read back right.",
  input: z.object({
    query_type: z.enum(['find', 'insert', 'update', 'delete', 'aggregate']),
    collection: z.string(),
    query: z.unknown().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    explanation,
  }),
  advertised: schema(
    {
      query_type: {
        type: 'string',
        enum: ['find', 'insert', 'update', 'delete', 'aggregate'],
        description: 'The operation',
      },
      collection: { type: 'string', description: 'The MongoDB collection' },
      query: { type: 'object', description: 'The filter, in MongoDB syntax' },
      data: { type: 'object', description: 'What to insert or set (insert, update)' },
      ...explains('why this operation is needed'),
    },
    ['query_type', 'collection', 'explanation'],
  ),
  async run(input, ctx) {
    const echo = {
      collection: input.collection,
      query_type: input.query_type,
      explanation: input.explanation ?? '',
    };
    const result = await ctx.sandbox.exec(
      ['mongosh', '--quiet', ctx.options.mongoUri, '--eval', mongoScript(input)],
      { timeoutMs: 60_000, signal: ctx.signal, maxOutputBytes: limits.responseBytes },
    );
    if (result.exitCode !== 0 || result.truncated)
      return fail(
        `Database query failed: ${result.exitCode === 127 ? 'mongosh is not installed in the sandbox' : result.truncated ? `the result is larger than ${formatSize(limits.responseBytes)}` : (result.stderr || result.stdout).trim().slice(0, 2000)}`,
        echo,
      );
    try {
      const parsed = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as { result: unknown };
      return { success: true, result: parsed.result, ...echo };
    } catch {
      return fail(`Database query failed: unexpected mongosh output`, echo);
    }
  },
});
