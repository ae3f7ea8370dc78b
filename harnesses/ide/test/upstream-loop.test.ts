import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleTask } from '@longhaul/testkit';
import { openTestGateway, scriptedModel } from '@longhaul/testkit/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { IdeHarness } from '../src/harness.js';
import { ideOptions, settle } from '../src/options.js';
import { paperSystemPrompt, sessionPrompts } from '../src/prompt.js';
import { DirSandbox } from './support/dir-sandbox.js';
import { mockModel } from './support/mock-model.js';
import { session, turn } from './support/run.js';

let sandbox: DirSandbox;
afterEach(async () => sandbox?.close());

const userTexts = (events: { type: string; role?: string; text?: string }[]) =>
  events.filter((e) => e.type === 'message' && e.role === 'user').map((e) => e.text);

describe('profile upstream: the released harness around the tools', () => {
  it("defaults to its 35 iterations, its completion guard and its own guard rules instead of the paper's list", () => {
    expect(settle(ideOptions.parse({ profile: 'upstream' }))).toMatchObject({
      maxIterations: 35,
      nudge: true,
      protected: [],
    });
    expect(settle(ideOptions.parse({}))).toMatchObject({ maxIterations: 100, nudge: false });
    expect(settle(ideOptions.parse({ profile: 'upstream', maxIterations: 100, nudge: false }))).toMatchObject(
      {
        maxIterations: 100,
        nudge: false,
      },
    );
    expect(() => ideOptions.parse({ profile: 'upstream', tools: ['websocket_test'] })).toThrow(
      /profile upstream has no tool websocket_test/,
    );
  });

  it('sends its prompt file as the system message without its header, and again before the first task message', async () => {
    const file = '# IDE Arena prompt\n\nYou are an IDE agent working in /app.\n';
    const prompts = sessionPrompts('upstream', file, 'Extra from the experiment.');
    expect(prompts).toEqual({
      system: 'You are an IDE agent working in /app.\n\nExtra from the experiment.',
      firstMessagePrefix: file,
    });
    expect(sessionPrompts('upstream', undefined, undefined).system).toBe(paperSystemPrompt);
    expect(sessionPrompts('paper', undefined, undefined)).toEqual({ system: paperSystemPrompt });

    sandbox = await DirSandbox.create({ 'a.py': 'x = 1\n' });
    const model = mockModel([{ text: 'first' }, { text: 'second' }]);
    const s = session(sandbox, model, { profile: 'upstream', nudge: false }, undefined, [], prompts);
    const first = await turn(s, '## CURRENT TASK\n\n**Task**: fix-x');
    expect(userTexts(first.events)).toEqual([
      '# IDE Arena prompt\n\nYou are an IDE agent working in /app.\n\n## CURRENT TASK\n\n**Task**: fix-x',
    ]);
    const system = model.prompts[0]!.prompt[0]!;
    expect(system).toEqual({ role: 'system', content: prompts.system });
    const second = await turn(s, 'and now this');
    expect(userTexts(second.events)).toEqual(['and now this']);
  });

  it('nudges a model that stops before an edit_file changed a file; other edit tools do not count', async () => {
    sandbox = await DirSandbox.create({ 'a.py': 'x = 1\n' });
    const model = mockModel([
      { calls: [{ name: 'write_file', input: { file_path: 'b.py', content: 'y = 2\n' } }] },
      { text: 'Done, I think.' },
      {
        calls: [
          {
            name: 'edit_file',
            input: {
              target_file: 'a.py',
              instructions: 'set x',
              edit_type: 'line_edits',
              line_edits: [{ type: 'replace', line_number: 1, content: 'x = 3' }],
            },
          },
        ],
      },
      { text: 'Done.' },
    ]);
    const { events, result } = await turn(session(sandbox, model, { profile: 'upstream' }));
    expect(result).toMatchObject({ status: 'ok', finalText: 'Done.' });
    expect(userTexts(events)).toEqual([
      'Fix it.',
      expect.stringMatching(/^Stop exploring and implement now/),
    ]);
    // The results reach the model as Python's json.dumps writes them.
    const outputs = events.flatMap((e) => (e.type === 'tool.result' ? [e.output] : []));
    expect(outputs[0]).toBe('{"success": true, "message": "Wrote b.py", "file_path": "b.py"}');
    expect(await sandbox.text('a.py')).toBe('x = 3\n');
  });

  it('reads systemPromptFile beside the experiment and offers its sixteen tools through the gateway', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-ide-prompt-'));
    sandbox = await DirSandbox.create({ 'main.py': 'print(1)\n' });
    const { gateway, dispose } = await openTestGateway({ scripted: scriptedModel([{ text: 'done' }]) });
    try {
      await writeFile(join(dir, 'arena.txt'), '# header\nBe an IDE agent.\n');
      const options = ideOptions.parse({ profile: 'upstream', systemPromptFile: 'arena.txt' });
      const harness = new IdeHarness(options, gateway, process.env, dir);
      const prepared = await harness.prepare(sandbox);
      expect(prepared).toMatchObject({ profile: 'upstream' });
      expect(prepared.tools).toHaveLength(16);
      const task = sampleTask(1);
      const opened = await harness.openSession(sandbox, { trialId: 't1', task } as never);
      const events = [];
      for await (const event of opened.turn('the task', {
        signal: new AbortController().signal,
        focus: { task, steps: task.steps },
        limits: {},
      }))
        events.push(event);
      // The scripted model answers at once: upstream's guard then asks for an edit (the next reply is missing).
      expect(userTexts(events)[0]).toBe('# header\nBe an IDE agent.\n\nthe task');
      await opened.close();

      const missing = new IdeHarness(
        ideOptions.parse({ profile: 'upstream', systemPromptFile: 'nowhere.txt' }),
        gateway,
        process.env,
        dir,
      );
      await expect(missing.prepare(sandbox)).rejects.toThrow(/systemPromptFile nowhere\.txt: ENOENT/);
    } finally {
      await dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
