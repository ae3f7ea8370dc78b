import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ideOptions } from '../src/options.js';
import { capOutput } from '../src/session.js';
import { allTools, offeredTools, runTool } from '../src/tools/registry.js';
import { defineTool, formatResult } from '../src/tools/tool.js';
import { pythonJson } from '../src/upstream/json.js';
import { DirSandbox } from './support/dir-sandbox.js';
import { mockModel } from './support/mock-model.js';
import { session, toolContext, turn } from './support/run.js';

/*
 * The agent makes files and servers of any size and hands the tools patterns of its choosing; the
 * loop runs in the runner's process beside every other trial. These are the ways a tool call used
 * to take the runner down (a 200 MB read_file: `Fatal JavaScript invalid size error`; a
 * backtracking grep_search: the event loop held, so no turn limit and no Ctrl-C) and their like.
 */

let sandbox: DirSandbox;
afterEach(async () => sandbox?.close());

const all = Object.values(allTools);
const why = { explanation: 'because the test says so' };

async function call(name: string, input: Record<string, unknown>, overrides = {}) {
  return runTool(name, { ...why, ...input }, all, toolContext(sandbox, overrides));
}

async function shell(command: string): Promise<void> {
  const result = await sandbox.exec(['sh', '-c', command], { timeoutMs: 120_000 });
  expect(result.exitCode, result.stderr).toBe(0);
}

/** Counts ticks of the runner's event loop while `work` runs: it must keep turning. */
async function ticksDuring<T>(work: Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 50);
  try {
    return { value: await work, ticks };
  } finally {
    clearInterval(timer);
  }
}

const backtracking = '(a+)+$';
const fortyAs = `${'a'.repeat(40)}!\n`;

describe('read_file', () => {
  it('refuses a 200 MB file with its size and how to look into it instead, without reading it', async () => {
    sandbox = await DirSandbox.create();
    await shell("head -c 200000000 /dev/zero | tr '\\0' '\\n' > nl.txt");
    const before = process.memoryUsage().rss;
    const result = await call('read_file', { target_file: 'nl.txt' });
    expect(result).toMatchObject({
      success: false,
      size: 200_000_000,
      error: expect.stringMatching(
        /^nl\.txt is 190\.7 MiB, larger than the 32\.0 MiB read_file reads; look into it with run_terminal_cmd instead \(wc -l nl\.txt; head -n 100 nl\.txt/,
      ),
    });
    // Not read: the runner did not take the file's size in memory.
    expect(process.memoryUsage().rss - before).toBeLessThan(100_000_000);
  });

  it('shows a long file up to the output limit and says where to read on', async () => {
    sandbox = await DirSandbox.create();
    await shell('seq 1 100000 | sed "s/^/line /" > long.txt');
    const first = await call('read_file', { target_file: 'long.txt' });
    const shown = first.end_line as number;
    expect(first).toMatchObject({ success: true, start_line: 1, total_lines: 100_000 });
    expect(shown).toBeGreaterThan(1000);
    expect(shown).toBeLessThan(100_000);
    expect(first.truncated).toBe(
      `lines ${shown + 1}-100000 not shown (output limit); read on with start_line_one_indexed=${shown + 1}`,
    );
    // The whole result fits what the model sees: nothing is cut out of its middle.
    const text = formatResult(first);
    expect(capOutput(text, 60_000)).toBe(text);
    const next = await call('read_file', { target_file: 'long.txt', start_line_one_indexed: shown + 1 });
    expect(String(next.content).split('\n')[0]!.trimStart()).toBe(`${shown + 1}|line ${shown + 1}`);
    const last = await call('read_file', {
      target_file: 'long.txt',
      start_line_one_indexed: 99_999,
      end_line_one_indexed_inclusive: 100_000,
    });
    expect(last).toMatchObject({ content: ' 99999|line 99999\n100000|line 100000', end_line: 100_000 });
    expect(last.truncated).toBeUndefined();
  });

  it('cuts a line longer than the output limit and says so', async () => {
    sandbox = await DirSandbox.create();
    await shell("head -c 300000 /dev/zero | tr '\\0' 'x' > min.js && echo >> min.js && echo tail >> min.js");
    const result = await call('read_file', { target_file: 'min.js' });
    expect(result).toMatchObject({ success: true, end_line: 1, total_lines: 2 });
    expect(String(result.content)).toMatch(/^1\|x+…\[line cut: \d+ more characters\]$/);
    expect(result.truncated).toMatch(/^line 1 is cut: .*; lines 2-2 not shown .*start_line_one_indexed=2$/);
  });
});

describe('the edit tools', () => {
  it('refuse a file over their limit with a hint; write_file replaces it without comparing', async () => {
    sandbox = await DirSandbox.create();
    await shell('seq 1 1000000 > big.py');
    const edit = await call('edit_file', {
      target_file: 'big.py',
      line_edits: [{ type: 'replace', start_line: 1, content: 'x = 1' }],
    });
    expect(edit).toMatchObject({
      success: false,
      error:
        'big.py is 6.6 MiB, larger than the 4.0 MiB edit_file rewrites; change it with run_terminal_cmd (sed, a script) instead',
    });
    expect(
      await call('search_replace', { file_path: 'big.py', old_string: '1', new_string: '2' }),
    ).toMatchObject({
      success: false,
      error: expect.stringMatching(/larger than the 4\.0 MiB search_replace rewrites/),
    });
    const write = await call('write_file', { file_path: 'big.py', content: 'x = 1\n' });
    expect(write).toEqual({ success: true, file: 'big.py', created: false });
    expect(await sandbox.text('big.py')).toBe('x = 1\n');
  });
});

describe('the searches', () => {
  it('stop a backtracking pattern at their time limit while the runner goes on', async () => {
    sandbox = await DirSandbox.create({ 'a.txt': fortyAs, 'b.txt': 'aaa\n' });
    const started = Date.now();
    const { value, ticks } = await ticksDuring(
      call('grep_search', { query: backtracking }, { searchTimeoutSeconds: 1 }),
    );
    expect(value).toMatchObject({
      success: false,
      error: expect.stringMatching(/^the search took longer than 1 s and was stopped: a pattern with nested/),
    });
    // 2^40 steps would take hours; the runner's timers kept firing all along.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(ticks).toBeGreaterThan(5);
    expect(await call('grep_search', { query: 'a{3}$' })).toMatchObject({
      success: true,
      total_matches: 1,
      matches: [{ file: 'b.txt', line: 1 }],
    });
  });

  it('run a backtracking glob off the runner too', async () => {
    sandbox = await DirSandbox.create({ [`${'a'.repeat(100)}.txt`]: 'x\n' });
    // Each * becomes a lazy repetition: trying every split of 100 characters among 12 of them.
    const { value, ticks } = await ticksDuring(
      call('file_search', { query: `${'*a'.repeat(12)}*b` }, { searchTimeoutSeconds: 1 }),
    );
    expect(value).toMatchObject({ success: false, error: expect.stringMatching(/took longer than 1 s/) });
    expect(ticks).toBeGreaterThan(5);
  });

  it('read source files up to their budget, leave out large ones, and say what they skipped', async () => {
    sandbox = await DirSandbox.create({ 'src/needle.py': 'needle = 1\n' });
    // 70 files of 1 MB: more than the 64 MiB a search reads; and a 2 MB log over the per-file limit.
    await shell(
      "for i in $(seq 1 70); do head -c 1000000 /dev/zero | tr '\\0' 'n' > data$i.txt; done; (head -c 2000000 /dev/zero | tr '\\0' 'x'; echo needle) > big.log",
    );
    const result = await call('grep_search', { query: 'needle' });
    expect(result.success).toBe(true);
    expect(result.truncated).toMatch(
      /^\d+ files not searched: the search reads at most 64\.0 MiB; narrow it to the folders or files that matter$/,
    );
    expect((result.matches as { file: string }[]).map((m) => m.file)).not.toContain('big.log');
    const narrowed = await call('codebase_search', { query: 'NEEDLE', target_directories: ['src'] });
    expect(narrowed).toMatchObject({ total_matches: 1, matches: [{ file: 'src/needle.py', line: 1 }] });
    expect(narrowed.truncated).toBeUndefined();
  });

  it('cut matched lines of minified files', async () => {
    sandbox = await DirSandbox.create();
    await shell("(printf 'needle'; head -c 100000 /dev/zero | tr '\\0' 'x'; echo) > min.js");
    const result = await call('grep_search', { query: 'needle' });
    const [match] = result.matches as { text: string }[];
    expect(match!.text).toMatch(/^needlex+…\[99506 more characters\]$/);
  });
});

describe('a turn', () => {
  it('aborted during a slow search ends promptly with the abort status', async () => {
    sandbox = await DirSandbox.create({ 'a.txt': fortyAs });
    const model = mockModel([{ calls: [{ name: 'grep_search', input: { query: backtracking, ...why } }] }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort('timeout'), 500);
    const started = Date.now();
    const { result } = await turn(session(sandbox, model), 'find it', controller.signal);
    expect(result.status).toBe('timeout');
    // Well before the search's own 30 s limit: the abort stopped the search thread.
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it('whose tool never returns, and ignores its signal, ends at the abort with the abort status', async () => {
    sandbox = await DirSandbox.create();
    const stuck = defineTool({
      name: 'stuck',
      description: 'Never answers.',
      input: z.object({}),
      run: () => new Promise(() => {}),
    });
    const model = mockModel([{ calls: [{ name: 'stuck', input: why }] }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort('timeout'), 300);
    const { result, events } = await turn(
      session(sandbox, model, {}, undefined, [stuck]),
      'go',
      controller.signal,
    );
    expect(result.status).toBe('timeout');
    expect(events.some((e) => e.type === 'tool.call' && e.name === 'stuck')).toBe(true);
  });
});

describe('the full-stack tools', () => {
  it('api_call reads at most 1 MiB of a body that never ends', async () => {
    sandbox = await DirSandbox.create();
    const chunk = Buffer.alloc(64 * 1024, 'y');
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const pump = () => {
        while (res.write(chunk)) {}
      };
      res.on('drain', pump);
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const result = await call(
        'api_call',
        { method: 'GET', url: '/stream' },
        { apiBaseUrl: `http://localhost:${port}` },
      );
      expect(result).toMatchObject({
        success: true,
        status_code: 200,
        truncated: 'the body is longer than 1.0 MiB; only its start was read',
      });
      expect(String(result.data)).toMatch(/^y{20000}$/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('results', () => {
  it('of every tool in a turn stay within the output limit', async () => {
    sandbox = await DirSandbox.create();
    await shell('seq 1 200000 > n.txt');
    const model = mockModel([
      {
        calls: [
          { name: 'read_file', input: { target_file: 'n.txt', ...why } },
          { name: 'grep_search', input: { query: '7', context_lines: 10, ...why } },
          { name: 'run_terminal_cmd', input: { command: 'cat n.txt', ...why } },
        ],
      },
      { text: 'done' },
    ]);
    const { events } = await turn(session(sandbox, model, { outputLimit: 20_000 }));
    const outputs = events.flatMap((e) => (e.type === 'tool.result' ? [e.output] : []));
    expect(outputs).toHaveLength(3);
    for (const output of outputs) expect(output.length).toBeLessThanOrEqual(20_100);
    // read_file fits its window to the limit: whole JSON, not cut in the middle.
    expect(JSON.parse(outputs[0]!)).toMatchObject({ success: true, total_lines: 200_000 });
  });
});

describe('profile upstream keeps the same bounds', () => {
  const upstream = offeredTools(ideOptions.parse({ profile: 'upstream' }), []);
  const callUpstream = (name: string, input: Record<string, unknown>, overrides = {}) =>
    runTool(name, input, upstream, toolContext(sandbox, { profile: 'upstream', ...overrides }));

  it('read_file refuses a file over its limit unread and shows a long one up to the output limit', async () => {
    sandbox = await DirSandbox.create();
    await shell("head -c 200000000 /dev/zero | tr '\\0' '\\n' > nl.txt; seq 1 100000 > long.txt");
    expect(await callUpstream('read_file', { target_file: 'nl.txt' })).toMatchObject({
      success: false,
      error: expect.stringMatching(/190\.7 MiB, more than the 32\.0 MiB read_file reads/),
    });
    const first = await callUpstream('read_file', { target_file: 'long.txt' });
    expect(first).toMatchObject({ success: true, total_lines: 100_001 });
    const shown = String(first.content).split('\n').length;
    expect(shown).toBeGreaterThan(1000);
    expect(first.truncated).toBe(
      `only ${shown} of the 100001 lines fit the output limit; read on with should_read_entire_file=false and start_line_one_indexed=${shown + 1}`,
    );
    const text = pythonJson(first);
    expect(capOutput(text, 60_000)).toBe(text);
  });

  it('grep_search and file_search stop a backtracking pattern at their time limit', async () => {
    sandbox = await DirSandbox.create({ 'a.txt': fortyAs, [`${'a'.repeat(100)}.txt`]: 'x\n' });
    const { value, ticks } = await ticksDuring(
      callUpstream('grep_search', { query: backtracking }, { searchTimeoutSeconds: 1 }),
    );
    expect(value).toMatchObject({ success: false, error: expect.stringMatching(/took longer than 1 s/) });
    expect(ticks).toBeGreaterThan(5);
    const glob = await callUpstream(
      'file_search',
      { query: `${'*a'.repeat(12)}*b` },
      { searchTimeoutSeconds: 1 },
    );
    expect(glob).toMatchObject({ success: false, error: expect.stringMatching(/took longer than 1 s/) });
  });

  it('grep_search returns at most 100 lines, each cut at 500 characters, and says how many more', async () => {
    sandbox = await DirSandbox.create();
    await shell(
      "seq 1 300 | sed 's/^/needle /' > many.txt; (printf needle; head -c 2000 /dev/zero | tr '\\0' x; echo) > wide.txt",
    );
    const result = await callUpstream('grep_search', { query: 'needle' });
    const matches = result.matches as string[];
    expect(matches).toHaveLength(101);
    expect(result.truncated).toMatch(/^201 more matching lines not shown/);
    const wide = await callUpstream('grep_search', { query: 'needlex' });
    expect((wide.matches as string[])[0]).toMatch(/wide\.txt:needlex+…\[1506 more characters\]$/);
  });
});
