import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ideOptions } from '../src/options.js';
import { applyLineEdits } from '../src/tools/edit.js';
import { allTools, offeredTools, runTool } from '../src/tools/registry.js';
import { DirSandbox } from './support/dir-sandbox.js';
import { toolContext } from './support/run.js';
import { wsServer } from './support/ws-server.js';

let sandbox: DirSandbox;
afterEach(async () => sandbox?.close());

const all = Object.values(allTools);
const why = { explanation: 'because the test says so' };

async function call(name: string, input: Record<string, unknown>, box = sandbox, overrides = {}) {
  return runTool(name, { ...why, ...input }, all, toolContext(box, overrides));
}

describe('read_file', () => {
  it('returns numbered lines of a range and the total', async () => {
    sandbox = await DirSandbox.create({ 'a.py': 'one\ntwo\nthree\nfour\n' });
    const result = await call('read_file', {
      target_file: 'a.py',
      start_line_one_indexed: 2,
      end_line_one_indexed_inclusive: 3,
    });
    expect(result).toMatchObject({
      success: true,
      content: '2|two\n3|three',
      total_lines: 4,
      start_line: 2,
      end_line: 3,
    });
    const whole = await call('read_file', { target_file: `${sandbox.workspace}/a.py` });
    expect(whole.content).toBe('1|one\n2|two\n3|three\n4|four');
  });

  it('refuses paths outside the workspace and protected grading files', async () => {
    sandbox = await DirSandbox.create({ 'run_tests.sh': 'exit 0\n', 'tasks/t1/task_tests.py': 'assert 1\n' });
    expect(await call('read_file', { target_file: '../etc/passwd' })).toMatchObject({
      success: false,
      error: expect.stringMatching(/outside the workspace/),
    });
    expect(await call('read_file', { target_file: '/etc/passwd' })).toMatchObject({ success: false });
    expect(await call('read_file', { target_file: 'run_tests.sh' })).toMatchObject({
      success: false,
      blocked_by_security: true,
    });
    expect(await call('read_file', { target_file: 'tasks/t1/task_tests.py' })).toMatchObject({
      blocked_by_security: true,
    });
  });

  it('says when the explanation is missing, unless it is optional', async () => {
    sandbox = await DirSandbox.create({ 'a.txt': 'x\n' });
    const ctx = toolContext(sandbox);
    expect(await runTool('read_file', { target_file: 'a.txt' }, all, ctx)).toMatchObject({
      success: false,
      error: expect.stringMatching(/Invalid arguments for read_file.*explanation/),
    });
    const lenient = toolContext(sandbox, { explanation: 'optional' });
    expect(await runTool('read_file', { target_file: 'a.txt' }, all, lenient)).toMatchObject({
      success: true,
    });
  });

  it('parses arguments sent as (twice) encoded JSON and names unknown tools', async () => {
    sandbox = await DirSandbox.create({ 'a.txt': 'x\n' });
    const encoded = JSON.stringify(JSON.stringify({ target_file: 'a.txt', ...why }));
    expect(await runTool('read_file', encoded, all, toolContext(sandbox))).toMatchObject({ success: true });
    expect(await runTool('teleport', {}, [allTools.read_file], toolContext(sandbox))).toMatchObject({
      success: false,
      error: 'Unknown tool: teleport. Available: read_file',
    });
  });
});

describe('list_dir and the searches', () => {
  it('lists recursively without node_modules, .git, virtualenvs, build output or protected files', async () => {
    sandbox = await DirSandbox.create({
      'src/app.py': 'print(1)\n',
      'node_modules/x/index.js': '',
      '.venv/lib.py': '',
      'dist/out.js': '',
      'tasks/t1/task_tests.py': '',
    });
    const result = await call('list_dir', { relative_workspace_path: '.', recursive: true });
    expect((result.entries as { path: string }[]).map((e) => e.path)).toEqual(['src', 'src/app.py']);
  });

  it('codebase_search finds text case-insensitively with context; grep_search takes regexes and globs', async () => {
    sandbox = await DirSandbox.create({
      'src/a.py': 'def Total(items):\n    return sum(items)\n',
      'src/b.ts': 'export const total = 1;\n',
      'tasks/t1/task_tests.py': 'def total(): pass\n',
    });
    const lexical = await call('codebase_search', { query: 'total', context_lines: 1 });
    expect(lexical.matches).toEqual([
      {
        file: 'src/a.py',
        line: 1,
        text: 'def Total(items):',
        context: ['1:def Total(items):', '2-    return sum(items)'],
      },
      { file: 'src/b.ts', line: 1, text: 'export const total = 1;', context: ['1:export const total = 1;'] },
    ]);
    const typed = await call('codebase_search', { query: 'total', file_types: ['ts'] });
    expect(typed.total_matches).toBe(1);
    const regex = await call('grep_search', {
      query: 'def \\w+\\(',
      case_sensitive: true,
      include_pattern: '*.py',
    });
    expect((regex.matches as { file: string }[]).map((m) => m.file)).toEqual(['src/a.py']);
    const excluded = await call('grep_search', { query: 'total', exclude_pattern: '*.ts' });
    expect(excluded.total_matches).toBe(1);
    const multi = await call('grep_search', { query: 'items\\):\\n\\s+return', multiline: true });
    expect(multi.matches).toMatchObject([{ file: 'src/a.py', line: 1 }]);
    expect(await call('grep_search', { query: '(' })).toMatchObject({
      success: false,
      error: expect.stringMatching(/Invalid regular expression/),
    });
  });

  it('file_search ranks fuzzy path matches and accepts globs', async () => {
    sandbox = await DirSandbox.create({
      'src/worklog/store.py': '',
      'src/other.py': '',
      'docs/storage.md': '',
    });
    const fuzzy = await call('file_search', { query: 'wlstore' });
    expect(fuzzy.results).toEqual(['src/worklog/store.py']);
    const glob = await call('file_search', { query: '**/*.py' });
    expect(glob.results).toEqual(['src/other.py', 'src/worklog/store.py']);
  });
});

describe('edits', () => {
  it('applies replace, insert and delete ranges against the original numbering', () => {
    const text = 'a\nb\nc\nd\ne\n';
    const out = applyLineEdits(text, [
      { type: 'replace', start_line: 2, end_line: 3, content: 'B\nC\nC2' },
      { type: 'insert', start_line: 5, content: 'before e' },
      { type: 'delete', line_number: 1 },
    ]);
    expect(out).toEqual({ text: 'B\nC\nC2\nd\nbefore e\ne\n' });
    expect(applyLineEdits(text, [{ type: 'insert', start_line: 9, content: 'end' }])).toEqual({
      text: 'a\nb\nc\nd\ne\nend\n',
    });
    expect(
      applyLineEdits(text, [
        { type: 'replace', start_line: 2, end_line: 3, content: 'x' },
        { type: 'delete', start_line: 3 },
      ]),
    ).toMatchObject({
      error: expect.stringMatching(/overlap/),
    });
  });

  it('edit_file writes a valid edit and reports the lines it changed', async () => {
    sandbox = await DirSandbox.create({ 'm.py': 'def f():\n    return 1\n' });
    const result = await call('edit_file', {
      target_file: 'm.py',
      line_edits: [{ type: 'replace', start_line: 2, content: '    return 2' }],
    });
    expect(result).toMatchObject({ success: true, lines_added: 1, lines_removed: 1 });
    expect(await sandbox.text('m.py')).toBe('def f():\n    return 2\n');
  });

  it('refuses an edit that breaks Python syntax, with the parse error, and writes nothing', async () => {
    sandbox = await DirSandbox.create({ 'm.py': 'def f():\n    return 1\n' });
    const result = await call('edit_file', {
      target_file: 'm.py',
      line_edits: [{ type: 'replace', start_line: 1, content: 'def f(:' }],
    });
    expect(result).toMatchObject({ success: false, syntax_error: true, syntax_line: 1 });
    expect(result.error).toMatch(/Syntax error in m.py/);
    expect(await sandbox.text('m.py')).toBe('def f():\n    return 1\n');
  });

  it('refuses search_replace and write_file that break TypeScript or JavaScript', async () => {
    sandbox = await DirSandbox.create({ 'a.ts': 'export const a: number = 1;\n' });
    const broken = await call('search_replace', {
      file_path: 'a.ts',
      old_string: '= 1;',
      new_string: '= (1 + ;',
    });
    expect(broken).toMatchObject({ success: false, syntax_error: true });
    expect(await sandbox.text('a.ts')).toBe('export const a: number = 1;\n');
    expect(await call('write_file', { file_path: 'b.js', content: 'function f( {\n' })).toMatchObject({
      syntax_error: true,
    });
    expect(
      await call('write_file', { file_path: 'b.js', content: 'export function f() {}\n' }),
    ).toMatchObject({ success: true, created: true });
  });

  it('search_replace wants a unique match unless replace_all', async () => {
    sandbox = await DirSandbox.create({ 'n.txt': 'x x x\n' });
    expect(
      await call('search_replace', { file_path: 'n.txt', old_string: 'x', new_string: 'y' }),
    ).toMatchObject({
      success: false,
      error: expect.stringMatching(/occurs 3 times/),
    });
    expect(
      await call('search_replace', {
        file_path: 'n.txt',
        old_string: 'x',
        new_string: 'y',
        replace_all: true,
      }),
    ).toMatchObject({ replacements: 3 });
    expect(await sandbox.text('n.txt')).toBe('y y y\n');
    expect(
      await call('search_replace', { file_path: 'n.txt', old_string: 'y y y', new_string: 'y y y' }),
    ).toMatchObject({
      error: expect.stringMatching(/No effective change/),
    });
  });

  it('delete_file, create_directory and edit_notebook act in the workspace only', async () => {
    sandbox = await DirSandbox.create({ 'gone.txt': 'x\n', 'run_tests.sh': 'exit 0\n' });
    expect(await call('delete_file', { target_file: 'gone.txt' })).toMatchObject({ success: true });
    expect(await call('delete_file', { target_file: 'gone.txt' })).toMatchObject({ success: false });
    expect(await call('delete_file', { target_file: 'run_tests.sh' })).toMatchObject({
      blocked_by_security: true,
    });
    expect(await call('create_directory', { directory_path: 'pkg/sub' })).toMatchObject({ success: true });
    expect((await sandbox.list('pkg')).map((e) => e.path)).toEqual(['pkg/sub']);
    const created = await call('edit_notebook', {
      target_notebook: 'n.ipynb',
      cell_idx: 0,
      is_new_cell: true,
      cell_language: 'python',
      new_string: 'x = 1\nprint(x)\n',
    });
    expect(created).toMatchObject({ success: true, total_cells: 1 });
    await call('edit_notebook', {
      target_notebook: 'n.ipynb',
      cell_idx: 0,
      is_new_cell: false,
      cell_language: 'python',
      old_string: 'x = 1',
      new_string: 'x = 2',
    });
    const notebook = JSON.parse(await sandbox.text('n.ipynb'));
    expect(notebook.cells[0]).toMatchObject({ cell_type: 'code', source: ['x = 2\n', 'print(x)\n'] });
  });
});

describe('run_terminal_cmd', () => {
  it('returns output and exit code, maps a timeout to 124, refuses protected names', async () => {
    sandbox = await DirSandbox.create({ 'run_tests.sh': 'exit 0\n' });
    expect(await call('run_terminal_cmd', { command: 'echo hi; exit 3' })).toMatchObject({
      success: false,
      exit_code: 3,
      stdout: 'hi\n',
    });
    expect(await call('run_terminal_cmd', { command: 'sleep 5', timeout_seconds: 0.2 })).toMatchObject({
      exit_code: 124,
      error: expect.stringMatching(/timed out after 0.2 seconds/),
    });
    expect(await call('run_terminal_cmd', { command: 'bash ./run_tests.sh' })).toMatchObject({
      blocked_by_security: true,
    });
  });

  it('refuses commands that name protected paths, not those that merely hold the word', async () => {
    sandbox = await DirSandbox.create({ 'tasks_list.txt': 'one\n' });
    const ran = (command: string) => call('run_terminal_cmd', { command });
    for (const command of [
      'ls tasks_list.txt',
      'echo "my tasks"',
      'echo my tasks',
      'grep -c one tasks_list.txt',
    ])
      expect(await ran(command), command).toMatchObject({ success: true });
    for (const command of [
      'cat tasks/task-1/task_tests.py',
      'ls tasks/',
      "cat 'run_tests.sh'",
      'python3 -m pytest --rootdir=. x/task_tests.py',
      `cat ${sandbox.workspace}/tasks/t/x`,
    ])
      expect(await ran(command), command).toMatchObject({ success: false, blocked_by_security: true });
    // A bare folder name is refused once that folder is there.
    await sandbox.writeFile('tasks/t/notes.md', 'x\n');
    expect(await ran('ls tasks')).toMatchObject({ blocked_by_security: true });
    expect(await ran('echo "my tasks"')).toMatchObject({ success: true });
    expect(await ran('ls project/tasks 2>/dev/null; true')).toMatchObject({ success: true });
  });

  it('runs background commands with a handle and their own output', async () => {
    sandbox = await DirSandbox.create();
    const ctx = toolContext(sandbox);
    const started = await runTool(
      'run_terminal_cmd',
      { ...why, command: 'echo ready; sleep 30', is_background: true },
      all,
      ctx,
    );
    expect(started).toMatchObject({ success: true, background_handle: 'bg-1' });
    let status: Record<string, unknown> = {};
    for (let i = 0; i < 50 && status.stdout !== 'ready\n'; i++) {
      status = await runTool(
        'run_terminal_cmd',
        { ...why, background_handle: 'bg-1', action: 'status' },
        all,
        ctx,
      );
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toMatchObject({ running: true, stdout: 'ready\n' });
    await runTool('run_terminal_cmd', { ...why, background_handle: 'bg-1', action: 'stop' }, all, ctx);
    await new Promise((r) => setTimeout(r, 50));
    const after = await runTool(
      'run_terminal_cmd',
      { ...why, background_handle: 'bg-1', action: 'status' },
      all,
      ctx,
    );
    expect(after.running).toBe(false);
  });
});

describe('full-stack tools', () => {
  it('api_call reaches a server in the sandbox through expose and returns status, headers, body and timing', async () => {
    sandbox = await DirSandbox.create();
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, url: req.url, body: body ? JSON.parse(body) : null }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const result = await call(
        'api_call',
        { method: 'POST', url: '/api/items', body: { a: 1 }, query: { q: 'x' } },
        sandbox,
        {
          apiBaseUrl: `http://localhost:${port}`,
        },
      );
      expect(result).toMatchObject({
        success: true,
        status_code: 200,
        data: { method: 'POST', url: '/api/items?q=x', body: { a: 1 } },
      });
      expect(result.headers).toMatchObject({ 'content-type': 'application/json' });
      expect(typeof result.duration_ms).toBe('number');
      expect(sandbox.exposed).toEqual([port]);
      expect(await call('api_call', { method: 'GET', url: 'http://example.com/' })).toMatchObject({
        success: false,
        error: expect.stringMatching(/not a server in the sandbox/),
      });
    } finally {
      server.close();
    }
  });

  it('websocket_test speaks Socket.IO and plain WebSocket to a server in the sandbox', async () => {
    sandbox = await DirSandbox.create();
    const { port, server } = await wsServer();
    try {
      const base = { apiBaseUrl: `http://localhost:${port}` };
      const io = await call(
        'websocket_test',
        { emit: [{ event: 'ping', data: { n: 1 } }], listen_for: ['pong'], listen_seconds: 5 },
        sandbox,
        base,
      );
      expect(io).toMatchObject({
        success: true,
        connected: true,
        received: [{ event: 'pong', data: { n: 1 } }],
      });
      const plain = await call(
        'websocket_test',
        {
          url: '/echo',
          protocol: 'websocket',
          emit: [{ event: 'x', data: { hello: 'ws' } }],
          listen_seconds: 0.3,
        },
        sandbox,
        base,
      );
      expect(plain).toMatchObject({ success: true, received: [{ event: 'message', data: { hello: 'ws' } }] });
      const missing = await call(
        'websocket_test',
        { emit: [{ event: 'other' }], listen_for: ['pong'], listen_seconds: 0.3 },
        sandbox,
        base,
      );
      expect(missing).toMatchObject({ success: false, error: 'never received: pong' });
    } finally {
      server.close();
    }
  });

  it('database_query says when mongosh is missing', async () => {
    sandbox = await DirSandbox.create();
    const result = await call('database_query', { query_type: 'find', collection: 'users' });
    expect(result.success).toBe(false);
    expect(String(result.error)).toMatch(/mongosh/);
  });

  it('is offered only to full-stack tasks unless asked for', () => {
    const o = ideOptions.parse({});
    expect(offeredTools(o, ['python']).map((t) => t.name)).not.toContain('api_call');
    expect(offeredTools(o, ['mern']).map((t) => t.name)).toContain('websocket_test');
    expect(
      offeredTools(ideOptions.parse({ tools: ['read_file', 'edit_file'] }), []).map((t) => t.name),
    ).toEqual(['read_file', 'edit_file']);
    expect(
      offeredTools(ideOptions.parse({ excludeTools: ['codebase_search'] }), []).map((t) => t.name),
    ).not.toContain('codebase_search');
  });
});
