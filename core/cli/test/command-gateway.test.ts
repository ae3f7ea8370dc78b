import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCommandGateway } from '../src/command-gateway.js';

const leftovers = async () =>
  (await readdir(tmpdir())).filter((name) => name.startsWith('longhaul-command-'));

describe('the gateway the CLI lends a contributed command', () => {
  it("answers from the command's models and is gone after close", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'command-gateway-'));
    await writeFile(join(dir, 'replies.yaml'), '- text: hello from the script\n');
    const before = await leftovers();
    const gateway = await openCommandGateway(
      { judge: { backend: 'scripted', file: 'replies.yaml' } },
      { baseDir: dir },
    );
    const endpoint = await gateway.endpoint('audit', '127.0.0.1', 'judge');
    const ask = () =>
      fetch(`${endpoint.hostBaseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'judge', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const reply = (await (await ask()).json()) as { choices: { message: { content: string } }[] };
    expect(reply.choices[0]?.message.content).toBe('hello from the script');
    await gateway.close();
    await expect(ask()).rejects.toThrow();
    expect(await leftovers()).toEqual(before);
  });

  it('bad models: a ConfigError naming the file and key, and no directory left', async () => {
    const before = await leftovers();
    await expect(
      openCommandGateway({ judge: { backend: 'oracel' } }, { baseDir: tmpdir(), configFile: 'models.yaml' }),
    ).rejects.toMatchObject({
      name: 'ConfigError',
      issues: [expect.objectContaining({ file: 'models.yaml' })],
    });
    expect(await leftovers()).toEqual(before);
  });
});
