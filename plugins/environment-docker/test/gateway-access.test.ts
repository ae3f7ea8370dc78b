import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Harness,
  type ModelEndpoint,
  type PluginRef,
  PluginRegistry,
  RunStore,
  type Sandbox,
  type Session,
  startRun,
  type Task,
  type TrajectoryEvent,
  type TrialSpec,
} from '@longhaul/core';
import { fakePlugin } from '@longhaul/testkit';
import { openTestGateway, type TestModels } from '@longhaul/testkit/gateway';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import dockerPlugin, { baseImageRef } from '../src/index.js';
import { runOf } from './helpers.js';

/**
 * What an agent holding its trial's token tries from inside the container: list the models, ask
 * the oracle for the answer, spend on another configured provider model, and use its own model.
 */
const probe = `
import json, os, urllib.request, urllib.error
base, token = os.environ["LH_BASE"], os.environ["LH_TOKEN"]
def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
        headers={"x-api-key": token, "content-type": "application/json", "anthropic-version": "2023-06-01"})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return [res.status, json.loads(res.read())]
    except urllib.error.HTTPError as e:
        return [e.code, json.loads(e.read())]
ask = lambda model: call("POST", "/v1/messages", {"model": model, "max_tokens": 50,
    "tools": [{"name": "write_file", "input_schema": {"type": "object"}}],
    "messages": [{"role": "user", "content": "give me the answer"}]})
print(json.dumps({"models": call("GET", "/v1/models"), "oracle": ask("oracle"),
    "sonnet": ask("sonnet"), "agent": ask("agent")}))
`;

const dockerReady = prerequisites.docker([baseImageRef()]);

/** A harness whose agent is the probe above, run in the sandbox as the agent user. */
class ProbeHarness implements Harness {
  readonly capabilities = { resume: false, memoryFiles: [], hooks: false };
  readonly endpoints: ModelEndpoint[] = [];
  output = '';

  async prepare(): Promise<Record<string, unknown>> {
    return { agent: 'probe' };
  }

  async openSession(sandbox: Sandbox, options: { model?: ModelEndpoint }): Promise<Session> {
    const endpoint = options.model!;
    this.endpoints.push(endpoint);
    const harness = this;
    return {
      id: 'probe-session',
      async *turn(): AsyncIterable<TrajectoryEvent> {
        yield { type: 'tool.call', id: 'probe', name: 'python3', input: {} };
        const result = await sandbox.exec(['python3', '-c', probe], {
          env: { LH_BASE: endpoint.baseUrl, LH_TOKEN: endpoint.token },
          timeoutMs: 120_000,
        });
        harness.output = result.stdout;
        yield {
          type: 'tool.result',
          id: 'probe',
          output: result.stdout + result.stderr,
          isError: result.exitCode !== 0,
        };
        yield {
          type: 'turn.end',
          result: { status: 'ok', finalText: 'probed', usage: emptyUsage, durationMs: 0 },
        };
      },
      state: () => undefined,
      close: async () => {},
    };
  }
}

const emptyUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
};

const ref = (id: string, options: Record<string, unknown> = {}): PluginRef => ({ id, options, label: id });

/** A host-loopback stand-in for a provider: it must never be reached. */
async function fakeProvider(): Promise<{ url: string; requests: string[]; close(): void }> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => server.close(),
  };
}

describe.skipIf(!dockerReady)('gateway access from a docker sandbox', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'longhaul-gateway-access-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lets the trial's token reach only the harness's model, and records each refusal as the trial's fault", async () => {
    const provider = await fakeProvider();
    const taskRoot = join(dir, 'task');
    await mkdir(join(taskRoot, 'seed'), { recursive: true });
    await mkdir(join(taskRoot, 'solution'), { recursive: true });
    await writeFile(join(taskRoot, 'seed/README.md'), 'seed\n');
    await writeFile(join(taskRoot, 'solution/answer.py'), 'SECRET_REFERENCE = 42\n');
    const task: Task = {
      id: 'access',
      title: 'access',
      source: 'test',
      root: taskRoot,
      entrypoint: 'true',
      language: 'python',
      environment: {},
      seed: join(taskRoot, 'seed'),
      steps: [{ id: 'one', index: 0, prompt: 'go', solution: join(taskRoot, 'solution'), metadata: {} }],
      timeouts: { caseMs: 1000 },
      hash: 'access-1',
      metadata: {},
    };
    const harness = new ProbeHarness();
    const definitions = [
      dockerPlugin,
      fakePlugin('harness', 'probe', () => harness),
      fakePlugin('script', 'one', () => ({
        plan: () => [
          {
            prompt: 'go',
            session: 'fresh',
            workspace: { action: 'carry' },
            steps: [0],
            scores: [0],
            feedbackCycles: 0,
          },
        ],
      })),
      fakePlugin('memory', 'none', () => ({ beforeTurn: async () => ({}), afterTurn: async () => {} })),
      fakePlugin('scorer', 'none', () => ({
        scope: 'step',
        version: '1',
        score: async () => [{ metric: 'ran', value: 1 }],
      })),
    ];
    const registry = PluginRegistry.of(
      definitions.map((definition) => ({ definition, packageName: 'test', version: '0.0.1', dir })),
    );
    const models: TestModels = {
      agent: { backend: 'scripted', replies: [{ when: '', text: 'your own model answers' }] },
      oracle: { backend: 'oracle' },
      sonnet: {
        backend: 'passthrough',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        apiKeyEnv: 'ACCESS_PROVIDER_KEY',
        baseUrl: provider.url,
        retries: 0,
      },
    };
    const trial: TrialSpec = {
      id: 'access.probe.r1',
      runId: '',
      runDir: '',
      task,
      condition: {
        key: 'probe/one/none',
        harness: ref('probe', { model: 'agent' }),
        environment: ref('docker'),
        script: ref('one'),
        memory: ref('none'),
      },
      repeat: 1,
      scorers: [ref('none')],
      limits: { turnMs: 300_000, stepMs: 600_000, turnsPerStep: 1, trialUsd: 0, onError: 'stop' },
      plugins: [],
      models,
    };
    const runDir = join(dir, runOf('run'));
    // Given to the run rather than opened by it, so that it can be asked after the trial.
    const { gateway, dispose } = await openTestGateway(models, {
      runDir: join(dir, 'gateway'),
      env: { ACCESS_PROVIDER_KEY: 'sk-ant-host-key-never-used' },
    });
    try {
      const result = await startRun(
        {
          file: join(dir, 'experiment.yaml'),
          baseDir: dir,
          name: 'access',
          resolved: 'name: access\n',
          registry,
          tasks: [task],
          trials: [trial],
          config: { concurrency: 1, models },
        },
        { runDir, gateway },
      );
      const seen = JSON.parse(harness.output) as Record<
        'models' | 'oracle' | 'sonnet' | 'agent',
        [number, Record<string, unknown>]
      >;
      // The token was handed to the sandbox for the harness's model, at the bridge address.
      expect(harness.endpoints.map((e) => e.model)).toEqual(['agent']);
      expect(harness.endpoints[0]!.baseUrl).not.toContain('127.0.0.1');
      expect(seen.models[0]).toBe(200);
      expect((seen.models[1].data as { id: string }[]).map((m) => m.id)).toEqual(['agent']);
      expect(seen.oracle).toEqual([
        403,
        {
          type: 'error',
          error: {
            type: 'permission_error',
            message: "model 'oracle' is not available to this token, which allows the model 'agent' only",
          },
        },
      ]);
      expect(seen.sonnet[0]).toBe(403);
      expect(provider.requests).toEqual([]);
      expect(seen.agent[0]).toBe(200);
      expect(JSON.stringify(seen)).not.toContain('SECRET_REFERENCE');

      // The agent carried on and finished, and the step's trajectory records both refusals.
      expect(result.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok']);
      const trajectory = await new RunStore(runDir).readTrajectory(trial.id, task.steps[0]!);
      expect(trajectory.filter((e) => e.type === 'error')).toEqual([
        expect.objectContaining({
          errorClass: 'forbidden',
          message: expect.stringMatching(/model 'oracle'/),
        }),
        expect.objectContaining({
          errorClass: 'forbidden',
          message: expect.stringMatching(/model 'sonnet'/),
        }),
      ]);
      expect(trajectory.at(-1)?.type).toBe('turn.end');
      // The token ended with the trial.
      const after = await fetch(`${harness.endpoints[0]!.hostBaseUrl}/v1/models`, {
        headers: { 'x-api-key': harness.endpoints[0]!.token },
      });
      expect(after.status).toBe(401);
    } finally {
      provider.close();
      await dispose();
    }
  }, 600_000);
});
