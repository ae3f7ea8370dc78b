import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassifiedError } from '@longhaul/core';
import { createGateway, type GatewayConfigInput } from '@longhaul/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { HostSandbox } from '../../claude-code/test/support/host-sandbox.js';
import { programReady } from '../../claude-code/test/support/program.js';
import { markedSleep, ofType, runTurn, turnOptions } from '../../claude-code/test/support/turns.js';
import { bundledBinary, Codex, codexOptions, pinnedVersion } from '../src/index.js';

const ready = programReady('Codex', '@openai/codex', bundledBinary);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(model: GatewayConfigInput['models'][string] | undefined, options: object = {}) {
  const sandbox = await HostSandbox.create();
  cleanup.push(() => sandbox.close());
  const gateway = model
    ? await createGateway({ models: { scripted: model } }, { runDir: sandbox.root })
    : undefined;
  if (gateway) cleanup.push(() => gateway.close());
  return { sandbox, gateway, harness: new Codex(codexOptions.parse(options), gateway) };
}

const run = (cmd: string): GatewayConfigInput['models'][string] => ({
  backend: 'scripted',
  replies: [{ toolCalls: [{ name: 'exec_command', input: { cmd } }] }, { text: 'ran it' }],
});
const { command: longCommand, marker } = markedSleep(60);

/** A stand-in for the codex binary: answers --version like the real one, then runs `body`. */
async function fakeCodex(sandbox: HostSandbox, body: string): Promise<string> {
  const path = join(sandbox.root, 'fake-codex');
  await writeFile(
    path,
    `#!/bin/sh\nif [ "$1" = --version ]; then echo "codex-cli ${pinnedVersion}"; exit 0; fi\n${body}\n`,
  );
  await chmod(path, 0o755);
  return path;
}

describe.skipIf(!ready)('codex faults', () => {
  it('refuses to prepare without a gateway and says the experiment needs models:', async () => {
    const { sandbox, harness } = await setup(undefined);
    const error = await harness.prepare(sandbox).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClassifiedError);
    expect(error).toMatchObject({ errorClass: 'harness', message: expect.stringContaining('models:') });
  });

  it('refuses a version other than the installed one', async () => {
    const { sandbox, harness } = await setup(run('true'), { version: '0.1.0' });
    await expect(harness.prepare(sandbox)).rejects.toThrow(
      /asks for version 0\.1\.0 but .* is \d+\.\d+\.\d+/,
    );
  });

  it('never passes provider keys from the host to the agent', async () => {
    const secrets = { OPENAI_API_KEY: 'sk-openai-host-secret', ANTHROPIC_API_KEY: 'sk-ant-host-secret' };
    Object.assign(process.env, secrets);
    cleanup.push(async () => {
      for (const name of Object.keys(secrets)) delete process.env[name];
    });
    const { sandbox, harness } = await setup(run('env; tr "\\0" "\\n" < /proc/$PPID/environ'));
    await harness.prepare(sandbox);
    const { events, result } = await runTurn(await harness.openSession(sandbox, { trialId: 't' }), 'env');
    expect(result.status).toBe('ok');
    const [output] = ofType(events, 'tool.result');
    expect(output?.output).toContain('CODEX_HOME=');
    expect(output?.output).not.toContain('host-secret');
    expect(JSON.stringify(sandbox.started)).not.toContain('host-secret');
  });

  it('stops the agent and its commands when the turn is aborted', async () => {
    const { sandbox, harness } = await setup(run(longCommand));
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't' });
    const controller = new AbortController();
    const events = [];
    for await (const event of session.turn('wait', turnOptions({ signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'tool.call') setTimeout(() => controller.abort('cancelled'), 500);
    }
    expect(events.at(-1)).toMatchObject({ type: 'turn.end', result: { status: 'cancelled' } });
    expect((await sandbox.exec(['pgrep', '-f', marker])).stdout.trim()).toBe('');
  });

  it('ends with timeout when the turn runs past its time limit', async () => {
    const { sandbox, harness } = await setup(run(longCommand));
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't' });
    const { result } = await runTurn(session, 'wait', turnOptions({ limits: { timeoutMs: 2000 } }));
    expect(result.status).toBe('timeout');
    expect((await sandbox.exec(['pgrep', '-f', marker])).stdout.trim()).toBe('');
  });

  it('classifies a failed model turn, a crash and output that is not JSONL', async () => {
    const { sandbox, gateway } = await setup(run('true'));
    const harnessWith = async (body: string) =>
      new Codex(codexOptions.parse({ executable: await fakeCodex(sandbox, body) }), gateway);
    const turn = async (body: string) =>
      runTurn(await (await harnessWith(body)).openSession(sandbox, { trialId: 't' }), 'go');

    const failed = await turn(
      `echo '{"type":"thread.started","thread_id":"th-1"}'; echo '{"type":"turn.failed","error":{"message":"unexpected status 429 Too Many Requests"}}'; exit 1`,
    );
    expect(failed.result).toMatchObject({
      status: 'error:rate_limit',
      error: expect.stringContaining('429'),
    });

    const crashed = await turn(
      `echo '{"type":"thread.started","thread_id":"th-1"}'; echo '{"type":"error","message":"stream disconnected"}'; echo 'panicked at core/src/lib.rs' >&2; exit 101`,
    );
    expect(crashed.result.status).toBe('error:crash');
    expect(crashed.result.error).toMatch(/code 101 .*: stream disconnected; panicked/);

    const garbled = await turn(`echo 'Error: config.toml is invalid'; exit 1`);
    expect(garbled.result.status).toBe('error:protocol');
  });
});
