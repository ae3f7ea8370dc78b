/**
 * The same requests through both tool profiles. The `upstream` expectations are written from
 * IDE-Bench's released harness as its code behaves (harness.py at AfterQuery/IDE-Arena
 * 2e66a4a: EnhancedTools._apply_line_edits, search_replace, read_file, codebase_search,
 * grep_search, file_search, run_terminal_cmd; docs/reference idebench.md §1.5), by hand, not by
 * running this code: deletes, then replaces, then inserts, each on the file as the edits before
 * left it; the first occurrence replaced; text without line numbers; ripgrep's py/js/ts types
 * and path:text lines; find -name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ideOptions } from '../src/options.js';
import { aiTools, offeredTools, runTool } from '../src/tools/registry.js';
import type { ToolResult } from '../src/tools/tool.js';
import { pythonJson } from '../src/upstream/json.js';
import { splitLinesKeepEnds } from '../src/upstream/line-edits.js';
import { DirSandbox } from './support/dir-sandbox.js';
import { toolContext } from './support/run.js';

let sandbox: DirSandbox;
afterEach(async () => sandbox?.close());

type Profile = 'paper' | 'upstream';
const why = { explanation: 'to compare the profiles' };

async function call(profile: Profile, name: string, input: Record<string, unknown>): Promise<ToolResult> {
  const options = ideOptions.parse({ profile });
  return runTool(name, { ...why, ...input }, offeredTools(options, []), toolContext(sandbox, { profile }));
}

const five = 'a\nb\nc\nd\ne\n';

/** One edit_file request, the file upstream leaves, and what the paper profile does with it. */
const edits: {
  what: string;
  line_edits: Record<string, unknown>[];
  upstream: string;
  paper: string | RegExp;
}[] = [
  {
    what: 'a multi-line replace shifts a later insert',
    line_edits: [
      { type: 'replace', line_number: 2, content: 'B1\nB2' },
      { type: 'insert', line_number: 4, content: 'X' },
    ],
    upstream: 'a\nB1\nB2\nX\nc\nd\ne\n',
    paper: 'a\nB1\nB2\nc\nX\nd\ne\n',
  },
  {
    what: 'a delete runs first and shifts a replace below it',
    line_edits: [
      { type: 'replace', line_number: 4, content: 'D' },
      { type: 'delete', line_number: 2 },
    ],
    upstream: 'a\nc\nd\nD\n',
    paper: 'a\nc\nD\ne\n',
  },
  {
    what: 'a replace ending in a newline leaves an empty element that later inserts count',
    line_edits: [
      { type: 'replace', line_number: 1, content: 'A\n' },
      { type: 'insert', line_number: 3, content: 'Z' },
    ],
    upstream: 'A\nZ\nb\nc\nd\ne\n',
    paper: 'A\nb\nZ\nc\nd\ne\n',
  },
  {
    what: 'a replace and a delete of the same line both apply',
    line_edits: [
      { type: 'replace', line_number: 2, content: 'X' },
      { type: 'delete', line_number: 2 },
    ],
    upstream: 'a\nX\nd\ne\n',
    paper: /overlap/,
  },
  {
    what: 'an insert at the line a delete removed goes where the next line moved',
    line_edits: [
      { type: 'insert', line_number: 2, content: 'N' },
      { type: 'delete', line_number: 1 },
    ],
    upstream: 'b\nN\nc\nd\ne\n',
    paper: 'N\nb\nc\nd\ne\n',
  },
  {
    what: 'two inserts at one line end up in reverse order',
    line_edits: [
      { type: 'insert', line_number: 2, content: 'X' },
      { type: 'insert', line_number: 2, content: 'Y' },
    ],
    upstream: 'a\nY\nX\nb\nc\nd\ne\n',
    paper: 'a\nY\nX\nb\nc\nd\ne\n',
  },
  {
    what: 'a replace past the end pads the file with empty lines',
    line_edits: [{ type: 'replace', line_number: 8, content: 'H' }],
    upstream: 'a\nb\nc\nd\ne\n\n\nH\n',
    paper: 'a\nb\nc\nd\ne\nH\n',
  },
  {
    what: 'two deletes, the lower after the higher',
    line_edits: [
      { type: 'delete', line_number: 2 },
      { type: 'delete', line_number: 3 },
    ],
    upstream: 'a\nd\ne\n',
    paper: 'a\nd\ne\n',
  },
];

describe('edit_file: the same requests through both profiles', () => {
  for (const edit of edits)
    it(edit.what, async () => {
      for (const profile of ['upstream', 'paper'] as const) {
        sandbox = await DirSandbox.create({ 'f.txt': five });
        const result = await call(profile, 'edit_file', {
          target_file: 'f.txt',
          instructions: edit.what,
          edit_type: 'line_edits',
          line_edits: edit.line_edits,
        });
        const expected = edit[profile];
        if (typeof expected === 'string') {
          expect(result, profile).toMatchObject({ success: true });
          expect(await sandbox.text('f.txt'), profile).toBe(expected);
        } else {
          expect(result, profile).toMatchObject({ success: false, error: expect.stringMatching(expected) });
          expect(await sandbox.text('f.txt'), profile).toBe(five);
        }
        await sandbox.close();
      }
    });

  it("upstream's result: changes_made per edit and total_edits; a no-op and an unknown type are no change", async () => {
    sandbox = await DirSandbox.create({ 'f.txt': five });
    const result = await call('upstream', 'edit_file', {
      target_file: 'f.txt',
      instructions: 'swap two lines',
      edit_type: 'line_edits',
      line_edits: [
        { type: 'replace', line_number: 1, content: 'A' },
        { type: 'delete', line_number: 5 },
      ],
    });
    expect(result).toMatchObject({
      success: true,
      target_file: 'f.txt',
      instructions: 'swap two lines',
      total_edits: 2,
    });
    expect(result.changes_made).toHaveLength(2);
    expect(result).not.toHaveProperty('lines_added');
    // Upstream skips an edit of a type it does not know; the file is then unchanged.
    expect(
      await call('upstream', 'edit_file', {
        target_file: 'f.txt',
        instructions: 'append',
        edit_type: 'line_edits',
        line_edits: [{ type: 'append', line_number: 1, content: 'z' }],
      }),
    ).toMatchObject({ success: false, error: expect.stringMatching(/No effective change/), total_edits: 1 });
    // line_edits given as a string: an error with a hint of the shape.
    expect(
      await call('upstream', 'edit_file', {
        target_file: 'f.txt',
        instructions: 'x',
        edit_type: 'line_edits',
        line_edits: '[{"type": "delete", "line_number": 1}]',
      }),
    ).toMatchObject({ success: false, hint: expect.stringContaining('line_number') });
  });

  it('upstream refuses a Python edit that does not parse, with the line, and writes nothing', async () => {
    sandbox = await DirSandbox.create({ 'm.py': 'def f():\n    return 1\n' });
    const result = await call('upstream', 'edit_file', {
      target_file: 'm.py',
      instructions: 'break it',
      edit_type: 'line_edits',
      line_edits: [{ type: 'replace', line_number: 2, content: '    return (' }],
    });
    expect(result).toMatchObject({ success: false, syntax_error: true, syntax_line: expect.any(Number) });
    expect(result.error).toMatch(/^Python syntax error in .*m\.py: /);
    expect(await sandbox.text('m.py')).toBe('def f():\n    return 1\n');
  });

  it('search_replace: upstream replaces the first occurrence, the paper profile wants a unique one', async () => {
    sandbox = await DirSandbox.create({ 'g.txt': 'foo foo\n' });
    expect(
      await call('upstream', 'search_replace', { file_path: 'g.txt', old_string: 'foo', new_string: 'bar' }),
    ).toEqual({
      success: true,
      message: expect.any(String),
      file_path: 'g.txt',
      old_string: 'foo',
      new_string: 'bar',
    });
    expect(await sandbox.text('g.txt')).toBe('bar foo\n');
    await sandbox.writeFile('g.txt', 'foo foo\n');
    expect(
      await call('paper', 'search_replace', { file_path: 'g.txt', old_string: 'foo', new_string: 'bar' }),
    ).toMatchObject({ success: false, error: expect.stringMatching(/occurs 2 times/) });
  });
});

describe('read_file through both profiles', () => {
  it('upstream returns the text as it is, counting the empty string after the last newline', async () => {
    sandbox = await DirSandbox.create({ 'r.txt': 'one\ntwo\nthree\n' });
    expect(await call('upstream', 'read_file', { target_file: 'r.txt' })).toEqual({
      success: true,
      content: 'one\ntwo\nthree\n',
      target_file: 'r.txt',
      total_lines: 4,
      explanation: why.explanation,
    });
    expect(
      await call('upstream', 'read_file', {
        target_file: 'r.txt',
        should_read_entire_file: false,
        start_line_one_indexed: 2,
        end_line_one_indexed_inclusive: 3,
      }),
    ).toEqual({
      success: true,
      content: 'two\nthree',
      target_file: 'r.txt',
      start_line: 2,
      end_line: 3,
      total_lines: 4,
      lines_before: 1,
      lines_after: 1,
      explanation: why.explanation,
    });
    expect(await call('paper', 'read_file', { target_file: 'r.txt' })).toMatchObject({
      content: '1|one\n2|two\n3|three',
      total_lines: 3,
    });
  });

  it('upstream refuses tasks/ and the runners by its own rules', async () => {
    sandbox = await DirSandbox.create({ 'tasks/t/notes.md': 'x\n', 'run_tests.sh': 'exit 0\n' });
    expect(await call('upstream', 'read_file', { target_file: 'tasks/t/notes.md' })).toMatchObject({
      success: false,
      target_file: 'tasks/t/notes.md',
    });
    expect(await call('upstream', 'read_file', { target_file: 'run_tests.sh' })).toMatchObject({
      success: false,
      blocked_by_security: true,
      operation: 'read_file',
    });
  });
});

describe('the searches through both profiles', () => {
  const files = {
    'src/engine.cpp': 'float blend(float t) {\n    return applyEasing(t);\n}\n',
    'tools/gen.py':
      '# generates tables\ndef table():\n    return [applyEasing(x) for x in range(3)]\nprint(applyEasing(1))\n',
    'web/calc.ts': 'export const calc = (x: number) => calc(x - 1);\n',
    '.hidden/x.py': 'applyEasing\n',
    '.config/setup.js': 'module.exports = calc(2);\n',
    'node_modules/m/index.js': 'applyEasing\n',
  };

  it('codebase_search: upstream searches only py/js/ts, one entry per file, with absolute paths', async () => {
    sandbox = await DirSandbox.create(files);
    const upstream = await call('upstream', 'codebase_search', { query: 'applyeasing' });
    expect(upstream).toEqual({
      success: true,
      results: [
        {
          file: `${sandbox.workspace}/tools/gen.py`,
          relevance: 0.9,
          snippet: 'return [applyEasing(x) for x in range(3)]',
          line_number: '3',
        },
      ],
      explanation: why.explanation,
    });
    const paper = await call('paper', 'codebase_search', { query: 'applyeasing' });
    expect((paper.matches as { file: string }[]).map((m) => m.file).sort()).toEqual([
      '.hidden/x.py',
      'src/engine.cpp',
      'tools/gen.py',
      'tools/gen.py',
    ]);
  });

  it('codebase_search: a pattern ripgrep rejects falls back to find and grep -l, hidden files included', async () => {
    sandbox = await DirSandbox.create(files);
    const ws = sandbox.workspace;
    const result = await call('upstream', 'codebase_search', { query: 'calc(' });
    expect(result).toEqual({
      success: true,
      results: [
        { file: `${ws}/.config/setup.js`, relevance: 0.7, snippet: "Contains 'calc('" },
        { file: `${ws}/web/calc.ts`, relevance: 0.7, snippet: "Contains 'calc('" },
      ],
      explanation: why.explanation,
    });
    // A hidden folder named as the target is searched (ripgrep skips hidden files it walks to).
    const hidden = await call('upstream', 'codebase_search', {
      query: 'applyEasing',
      target_directories: ['.hidden'],
    });
    expect(hidden.results).toEqual([
      { file: `${ws}/.hidden/x.py`, relevance: 0.9, snippet: 'applyEasing', line_number: '1' },
    ]);
  });

  it("grep_search: upstream returns ripgrep's path:text lines, no line numbers, and fails on no match", async () => {
    sandbox = await DirSandbox.create(files);
    const ws = sandbox.workspace;
    expect(
      await call('upstream', 'grep_search', { query: 'APPLYEASING\\(1', include_pattern: '*.py' }),
    ).toEqual({
      success: true,
      matches: [`${ws}/tools/gen.py:print(applyEasing(1))`, ''],
      query: 'APPLYEASING\\(1',
      explanation: why.explanation,
    });
    expect(await call('upstream', 'grep_search', { query: 'APPLYEASING', case_sensitive: true })).toEqual({
      success: false,
      matches: [],
      query: 'APPLYEASING',
      explanation: why.explanation,
    });
    const paper = await call('paper', 'grep_search', { query: 'APPLYEASING\\(1', include_pattern: '*.py' });
    expect(paper).toMatchObject({ success: true, matches: [{ file: 'tools/gen.py', line: 4 }] });
  });

  it('file_search: upstream matches names with find -name "*query*", case and all; the paper profile fuzzily', async () => {
    sandbox = await DirSandbox.create(files);
    expect(await call('upstream', 'file_search', { query: 'engine' })).toEqual({
      success: true,
      results: ['src/engine.cpp'],
      query: 'engine',
      explanation: why.explanation,
    });
    expect((await call('upstream', 'file_search', { query: 'Engine' })).results).toEqual([]);
    expect((await call('upstream', 'file_search', { query: 'x.py' })).results).toEqual(['.hidden/x.py']);
    expect((await call('paper', 'file_search', { query: 'Engine' })).results).toEqual(['src/engine.cpp']);
  });
});

describe('the terminal and the guard through both profiles', () => {
  it('upstream gives output and error output as one text and no exit code', async () => {
    sandbox = await DirSandbox.create();
    expect(
      await call('upstream', 'run_terminal_cmd', {
        command: 'echo out; echo err >&2; exit 3',
        is_background: false,
      }),
    ).toEqual({
      success: false,
      output: 'out\nerr\n',
      error: '',
      command: 'echo out; echo err >&2; exit 3',
      explanation: why.explanation,
      is_background: false,
    });
    expect(await call('paper', 'run_terminal_cmd', { command: 'echo out; exit 3' })).toMatchObject({
      exit_code: 3,
      stdout: 'out\n',
    });
  });

  it('upstream refuses commands that mention a runner or task_tests, and lets `tasks` through', async () => {
    sandbox = await DirSandbox.create({ 'tasks_list.txt': 'x\n' });
    expect(
      await call('upstream', 'run_terminal_cmd', { command: 'cat run_tests.sh', is_background: false }),
    ).toMatchObject({
      success: false,
      blocked_by_security: true,
    });
    const ran = await call('upstream', 'run_terminal_cmd', {
      command: 'ls tasks_list.txt; echo my tasks',
      is_background: false,
    });
    expect(ran).toMatchObject({ success: true, output: 'tasks_list.txt\nmy tasks\n' });
  });
});

describe('what each profile offers', () => {
  it('upstream offers its sixteen schemas, explanation where it declares one, required on four', () => {
    const options = ideOptions.parse({ profile: 'upstream' });
    const tools = aiTools(offeredTools(options, []), options);
    expect(Object.keys(tools)).toEqual([
      'codebase_search',
      'read_file',
      'run_terminal_cmd',
      'list_dir',
      'grep_search',
      'edit_file',
      'write_file',
      'search_replace',
      'file_search',
      'delete_file',
      'web_search',
      'create_diagram',
      'edit_notebook',
      'api_call',
      'database_query',
      'ui_test',
    ]);
    const schemas = Object.fromEntries(
      Object.entries(tools).map(([name, tool]) => [
        name,
        (tool.inputSchema as { jsonSchema: { properties: object; required: string[] } }).jsonSchema,
      ]),
    );
    const requiring = Object.keys(schemas).filter((name) => schemas[name]!.required.includes('explanation'));
    expect(requiring).toEqual(['file_search', 'api_call', 'database_query', 'ui_test']);
    const without = Object.keys(schemas).filter((name) => !('explanation' in schemas[name]!.properties));
    expect(without).toEqual(['edit_file', 'write_file', 'search_replace', 'create_diagram', 'edit_notebook']);
    expect(schemas.read_file!.required).toEqual([
      'target_file',
      'should_read_entire_file',
      'start_line_one_indexed',
      'end_line_one_indexed_inclusive',
    ]);
    expect(schemas.edit_file!.required).toEqual(['target_file', 'instructions', 'edit_type']);
    // The paper profile: twelve tools for a task that is not full-stack, explanation required on each.
    const paper = ideOptions.parse({});
    const paperTools = aiTools(offeredTools(paper, []), paper);
    expect(Object.keys(paperTools)).toHaveLength(12);
  });

  it('upstream answers create_directory and list_files without offering them, and unknown names its way', async () => {
    sandbox = await DirSandbox.create({ 'a/b.txt': 'x\n', 'node_modules/z.js': 'x\n' });
    expect(await call('upstream', 'create_directory', { directory_path: 'new/dir' })).toMatchObject({
      success: true,
      directory_path: 'new/dir',
    });
    expect(await call('upstream', 'list_files', { directory: '.' })).toEqual({
      success: true,
      files: ['a/b.txt'],
      directory: '.',
    });
    expect(await call('upstream', 'teleport', {})).toEqual({ error: 'Unknown function: teleport' });
  });

  it("lines split as Python's splitlines(keepends=True) splits them", () => {
    expect(splitLinesKeepEnds('a\r\nb\rc\fd\n\ne')).toEqual(['a\r\n', 'b\r', 'c\f', 'd\n', '\n', 'e']);
  });

  it("results reach the model as Python's json.dumps writes them", () => {
    expect(pythonJson({ success: true, content: 'é\n', n: [1, null] })).toBe(
      '{"success": true, "content": "\\u00e9\\n", "n": [1, null]}',
    );
  });
});
