import { join } from 'node:path';
import type { TrajectoryEvent } from '@longhaul/core';
import { sampleTask } from '@longhaul/testkit';
import { openTestGateway, scriptedModel } from '@longhaul/testkit/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { IdeHarness } from '../src/harness.js';
import { ideOptions } from '../src/options.js';
import { connectMcp } from '../src/tools/mcp.js';
import { DirSandbox } from './support/dir-sandbox.js';
import { mockModel } from './support/mock-model.js';
import { results, session, turn } from './support/run.js';

const server = join(import.meta.dirname, 'fixtures', 'mcp-shout.mjs');
let sandbox: DirSandbox;
afterEach(async () => sandbox?.close());

describe('MCP servers as tools', () => {
  it("offers a server's tools as <server>__<tool>, with an explanation, and calls them", async () => {
    const mcp = await connectMcp(
      ideOptions.parse({ mcpServers: { loud: { command: process.execPath, args: [server] } } }).mcpServers,
    );
    try {
      expect(mcp.tools.map((t) => t.name)).toEqual(['loud__shout']);
      sandbox = await DirSandbox.create();
      const model = mockModel([
        {
          calls: [
            { name: 'loud__shout', input: { text: 'hello', explanation: 'make it loud' } },
            { name: 'loud__shout', input: { text: '', explanation: 'nothing' } },
            { name: 'loud__shout', input: { explanation: 'no text' } },
          ],
        },
        { text: 'HELLO' },
      ]);
      const { events } = await turn(session(sandbox, model, {}, undefined, mcp.tools));
      const offered = model.prompts[0]!.tools!.find((t) => t.name === 'loud__shout') as {
        inputSchema?: unknown;
      };
      expect(JSON.stringify(offered.inputSchema)).toContain('explanation');
      const [loud, empty, invalid] = results(events);
      expect(loud).toEqual({ success: true, content: 'HELLO' });
      expect(empty).toMatchObject({ success: false, error: 'nothing to shout' });
      expect(invalid).toMatchObject({
        success: false,
        error: expect.stringMatching(/Invalid arguments for loud__shout/),
      });
    } finally {
      await mcp.close();
    }
  });

  it('says which server did not start', async () => {
    await expect(
      connectMcp(
        ideOptions.parse({ mcpServers: { gone: { command: '/nonexistent/mcp-server' } } }).mcpServers,
      ),
    ).rejects.toThrow(/MCP server gone did not start/);
  });
});

describe('the harness with MCP servers', () => {
  it('opens them with each session, offers their tools to the model and closes them with it', async () => {
    sandbox = await DirSandbox.create();
    const { gateway, dispose } = await openTestGateway({
      scripted: scriptedModel([
        { toolCalls: [{ name: 'loud__shout', input: { text: 'hi there', explanation: 'be heard' } }] },
        { text: 'done' },
      ]),
    });
    try {
      const options = ideOptions.parse({
        mcpServers: { loud: { command: process.execPath, args: [server] } },
      });
      const harness = new IdeHarness(options, gateway);
      const opened = await harness.openSession(sandbox, { trialId: 't' });
      const task = sampleTask(1);
      const events: TrajectoryEvent[] = [];
      for await (const event of opened.turn('go', {
        signal: new AbortController().signal,
        focus: { task, steps: task.steps },
        limits: {},
      }))
        events.push(event);
      await opened.close();
      expect(results(events)).toEqual([{ success: true, content: 'HI THERE' }]);
    } finally {
      await dispose();
    }
  });
});
