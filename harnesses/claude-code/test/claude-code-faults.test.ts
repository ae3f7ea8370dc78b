import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassifiedError } from '@longhaul/core';
import { createGateway, type GatewayConfigInput } from '@longhaul/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { bundledBinary, ClaudeCode, claudeCodeOptions, pinnedVersion } from '../src/index.js';
import { HostSandbox } from './support/host-sandbox.js';
import { programReady } from './support/program.js';
import { markedSleep, ofType, runTurn, turnOptions } from './support/turns.js';

const ready = programReady('Claude Code', '@anthropic-ai/claude-code', bundledBinary);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(replies: GatewayConfigInput['models'][string] | undefined, options: object = {}) {
  const sandbox = await HostSandbox.create();
  cleanup.push(() => sandbox.close());
  const gateway = replies
    ? await createGateway({ models: { scripted: replies } }, { runDir: sandbox.root })
    : undefined;
  if (gateway) cleanup.push(() => gateway.close());
  const harness = new ClaudeCode(claudeCodeOptions.parse(options), gateway);
  return { sandbox, gateway, harness };
}

const bash = (command: string): GatewayConfigInput['models'][string] => ({
  backend: 'scripted',
  replies: [{ toolCalls: [{ name: 'Bash', input: { command } }] }, { text: 'ran it' }],
});

/** A stand-in for the claude binary: answers --version like the real one, then runs `body`. */
async function fakeClaude(sandbox: HostSandbox, body: string): Promise<string> {
  const path = join(sandbox.root, 'fake-claude');
  await writeFile(
    path,
    `#!/bin/sh\nif [ "$1" = --version ]; then echo "${pinnedVersion} (Claude Code)"; exit 0; fi\n${body}\n`,
  );
  await chmod(path, 0o755);
  return path;
}

const { command: longCommand, marker } = markedSleep(120);

describe.skipIf(!ready)('claude-code faults', () => {
  it('refuses to prepare without a gateway and says the experiment needs models:', async () => {
    const { sandbox, harness } = await setup(undefined);
    const error = await harness.prepare(sandbox).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClassifiedError);
    expect(error).toMatchObject({ errorClass: 'harness', message: expect.stringContaining('models:') });
    await expect(harness.openSession(sandbox, { trialId: 't' })).rejects.toThrow(/models:/);
  });

  it('refuses a version other than the installed one', async () => {
    const { sandbox, harness } = await setup(bash('true'), { version: '1.0.0' });
    await expect(harness.prepare(sandbox)).rejects.toThrow(
      new RegExp(`asks for version 1\\.0\\.0 but .* is ${pinnedVersion.replaceAll('.', '\\.')}`),
    );
  });

  it('never passes provider keys from the host to the agent', async () => {
    const secrets = { ANTHROPIC_API_KEY: 'sk-ant-host-secret', OPENAI_API_KEY: 'sk-openai-host-secret' };
    Object.assign(process.env, secrets);
    cleanup.push(async () => {
      for (const name of Object.keys(secrets)) delete process.env[name];
    });
    const { sandbox, harness } = await setup(bash('env; cat /proc/$PPID/environ | tr "\\0" "\\n"'));
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't' });
    const { events, result } = await runTurn(session, 'print the environment');
    expect(result.status).toBe('ok');
    const [output] = ofType(events, 'tool.result');
    expect(output?.output).toContain('CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1');
    expect(output?.output).not.toContain('host-secret');
    expect(JSON.stringify(sandbox.started)).not.toContain('host-secret');
  });

  it('ends the turn as failed when the agent reaches maxTurns', async () => {
    const { sandbox, harness } = await setup(bash('true'), { maxTurns: 1 });
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't' });
    const { events, result } = await runTurn(session, 'go');
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/maximum number of turns/);
    expect(ofType(events, 'tool.call')).toHaveLength(1);
  });

  it('stops the agent and its commands when the turn is aborted', async () => {
    const { sandbox, harness } = await setup(bash(longCommand));
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't' });
    const controller = new AbortController();
    const events = [];
    const begun = Date.now();
    for await (const event of session.turn('sleep', turnOptions({ signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'tool.call') setTimeout(() => controller.abort('cancelled'), 500);
    }
    // Far less than the command's 120 s: the abort ended it, even on a busy machine.
    expect(Date.now() - begun).toBeLessThan(60_000);
    expect(events.at(-1)).toMatchObject({ type: 'turn.end', result: { status: 'cancelled' } });
    expect(ofType(events, 'tool.call')).toEqual([expect.objectContaining({ name: 'Bash' })]);
    const sleeping = await sandbox.exec(['pgrep', '-f', marker]);
    expect(sleeping.stdout.trim()).toBe('');
  });

  it('ends with timeout when the turn runs past its time limit', async () => {
    const { sandbox, harness } = await setup(bash(longCommand));
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't' });
    const { result, events } = await runTurn(session, 'sleep', turnOptions({ limits: { timeoutMs: 3000 } }));
    expect(result.status, JSON.stringify(events)).toBe('timeout');
  });

  it('classifies a crash with the stderr tail, and output that is not stream-json as protocol', async () => {
    const { sandbox } = await setup(undefined);
    const gateway = await createGateway({ models: { scripted: bash('true') } }, { runDir: sandbox.root });
    cleanup.push(() => gateway.close());
    const crashing = await fakeClaude(
      sandbox,
      `echo '{"type":"system","subtype":"init","session_id":"s1","model":"m"}'; echo 'fatal: out of memory' >&2; exit 3`,
    );
    const crash = new ClaudeCode(claudeCodeOptions.parse({ executable: crashing }), gateway);
    await crash.prepare(sandbox);
    const crashed = await runTurn(await crash.openSession(sandbox, { trialId: 't' }), 'go');
    expect(crashed.result.status).toBe('error:crash');
    expect(crashed.result.error).toMatch(/exited with code 3.*fatal: out of memory/s);
    expect(ofType(crashed.events, 'session.start')).toHaveLength(1);

    const garbled = await fakeClaude(sandbox, `echo 'Error: something went wrong'; exit 1`);
    const garble = new ClaudeCode(claudeCodeOptions.parse({ executable: garbled }), gateway);
    const bad = await runTurn(await garble.openSession(sandbox, { trialId: 't' }), 'go');
    expect(bad.result.status).toBe('error:protocol');
    expect(ofType(bad.events, 'error')).toEqual([expect.objectContaining({ errorClass: 'protocol' })]);
  });

  it('starts the session again after a turn that crashed before Claude Code began it', async () => {
    const { sandbox } = await setup(undefined);
    const gateway = await createGateway({ models: { scripted: bash('true') } }, { runDir: sandbox.root });
    cleanup.push(() => gateway.close());
    const args = join(sandbox.root, 'args');
    const failing = await fakeClaude(
      sandbox,
      `echo "$@" >> ${args}; echo 'cannot reach the config dir' >&2; exit 1`,
    );
    const harness = new ClaudeCode(claudeCodeOptions.parse({ executable: failing }), gateway);
    const session = await harness.openSession(sandbox, { trialId: 't' });
    expect((await runTurn(session, 'one')).result.status).toBe('error:crash');
    expect((await runTurn(session, 'two')).result.status).toBe('error:crash');
    expect(session.state()).toBeUndefined();
    const calls = (await readFile(args, 'utf8')).trim().split('\n');
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call).toMatch(new RegExp(`--session-id ${session.id}`));
  });
});
