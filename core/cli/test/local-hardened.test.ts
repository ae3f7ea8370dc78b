import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { repoRoot, spawnCli, workDir } from './fixtures/resume/spawn-cli.js';

const hardened = 'environment={id: local, options: {isolation: bubblewrap}}';

const work = workDir('longhaul-hardened-', [
  'core/kernel',
  'core/cli',
  'core/gateway',
  'plugins/source-longhaul',
  'harnesses/oracle',
  'harnesses/ide',
  'plugins/environment-local',
  'plugins/scripts',
  'plugins/memory-basic',
  'plugins/scorer-tests',
  'plugins/reporter-summary',
]);

async function strictScores(runDir: string): Promise<number[]> {
  const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
  return summary.trials[0].steps.map((s: { scores: Record<string, number> }) => s.scores['tests.strict']);
}

/**
 * Run by the ide harness's terminal tool inside the sandbox: finds the ports the sandbox's
 * network namespace listens on at an address other than 127.0.0.1 (the relay of the gateway,
 * at hostAddress) and asks each for /v1/models without a token. The gateway answers 401.
 */
const probe = `import urllib.request, urllib.error
found = []
for line in open("/proc/net/tcp").read().splitlines()[1:]:
    fields = line.split()
    ip, port = fields[1].split(":")
    if fields[3] != "0A" or ip == "0100007F":
        continue
    address = ".".join(str(int(ip[i:i + 2], 16)) for i in (6, 4, 2, 0))
    try:
        urllib.request.urlopen("http://%s:%d/v1/models" % (address, int(port, 16)), timeout=10)
        found.append("GATEWAY 200")
    except urllib.error.HTTPError as error:
        found.append("GATEWAY %d" % error.code)
print(" ".join(found) or "NO GATEWAY")
`;

describe.skipIf(!prerequisites.bubblewrap())(
  'the local environment with isolation: bubblewrap, end to end',
  () => {
    it('runs the quickstart (oracle harness) with every step scoring tests.strict 1, and no warning', async () => {
      const runDir = join(work(), 'quickstart');
      const quickstart = join(repoRoot, 'examples/quickstart.yaml');
      const run = await spawnCli(['run', quickstart, '--run-dir', runDir, '--set', hardened], repoRoot).done;
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('warning:');
      expect(await strictScores(runDir)).toEqual([1, 1, 1, 1]);
    }, 600_000);

    it('runs the ide harness with a scripted model, whose terminal reaches the gateway through the relay', async () => {
      const problems = join(work(), 'problems');
      const step = join(problems, 'hello', 'steps', '01-hello');
      await mkdir(join(step, 'cases', 'core'), { recursive: true });
      await mkdir(join(step, 'solution'), { recursive: true });
      await writeFile(
        join(problems, 'hello', 'task.yaml'),
        stringify({ id: 'hello', title: 'hello', entrypoint: 'python3 main.py', language: 'python' }),
      );
      await writeFile(join(step, 'spec.md'), 'Write `{{entrypoint}}` so that it prints hello.\n');
      await writeFile(join(step, 'solution', 'main.py'), 'print("hello")\n');
      await writeFile(
        join(step, 'cases', 'core', 'hello.yaml'),
        stringify({ argv: [], expect: { exitCode: 0, stdout: { text: 'hello\n' } } }),
      );
      const experiment = join(work(), 'ide.yaml');
      await writeFile(
        experiment,
        stringify({
          name: 'ide-hardened',
          source: { id: 'longhaul', options: { path: problems } },
          models: {
            agent: {
              backend: 'scripted',
              replies: [
                {
                  toolCalls: [
                    { name: 'write_file', input: { file_path: 'main.py', content: 'print("hello")\n' } },
                    { name: 'write_file', input: { file_path: 'probe.py', content: probe } },
                    { name: 'run_terminal_cmd', input: { command: 'python3 probe.py && rm probe.py' } },
                  ],
                },
                { text: 'main.py prints hello.' },
              ],
            },
          },
          harness: { id: 'ide', options: { model: 'agent', explanation: 'optional' } },
          environment: { id: 'local', options: { isolation: 'bubblewrap' } },
          script: 'checkpoints',
          scorers: ['tests'],
          reporters: ['summary'],
          limits: { turnSeconds: 300, stepSeconds: 600 },
        }),
      );
      const runDir = join(work(), 'ide');
      const run = await spawnCli(['run', experiment, '--run-dir', runDir], repoRoot).done;
      expect(run.code, run.stderr).toBe(0);
      expect(await strictScores(runDir)).toEqual([1]);
      const trajectory = await readFile(
        join(runDir, 'trials/hello.ide.checkpoints.none.r1/steps/01-hello/trajectory.jsonl'),
        'utf8',
      );
      expect(trajectory).toContain('GATEWAY 401');
    }, 600_000);
  },
);
