import type { ExecResult, Sandbox, SandboxProcess, TrajectoryEvent, TurnResult } from '@longhaul/core';
import { AgentProtocolError, type AgentStreamParser, emptyUsage, runAgentTurn } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

/** A process whose output and exit the test drives. */
class ScriptedProcess implements SandboxProcess {
  readonly pid = 42;
  stdout = '';
  stderr = '';
  killed = false;
  private finish!: (result: ExecResult) => void;
  private readonly done = new Promise<ExecResult>((resolve) => {
    this.finish = resolve;
  });

  constructor(private readonly options: { ignoreKill?: boolean } = {}) {}

  output() {
    return { stdout: this.stdout, stderr: this.stderr };
  }
  wait() {
    return this.done;
  }
  exit(exitCode: number | null, extra: Partial<ExecResult> = {}) {
    this.finish({
      exitCode,
      stdout: this.stdout,
      stderr: this.stderr,
      timedOut: false,
      durationMs: 1,
      ...extra,
    });
  }
  async kill() {
    this.killed = true;
    if (!this.options.ignoreKill) this.exit(null);
  }
}

function sandboxFor(
  process: ScriptedProcess,
  started: { argv: string[]; env?: Record<string, string> }[] = [],
) {
  const exec = async (): Promise<ExecResult> => ({
    exitCode: 0,
    stdout: '',
    stderr: '',
    timedOut: false,
    durationMs: 0,
  });
  return {
    start: async (argv: string[], options: { env?: Record<string, string> }) => {
      started.push({ argv, env: options.env });
      return process;
    },
    exec,
  } as unknown as Sandbox;
}

/** Lines are `say TEXT` or `done STATUS`; anything else is not the format. */
class LineParser implements AgentStreamParser {
  outcome: AgentStreamParser['outcome'];
  finalText = '';
  usage = emptyUsage();
  parse(line: string): TrajectoryEvent[] {
    const [verb, ...rest] = line.split(' ');
    const text = rest.join(' ');
    if (verb === 'say') {
      this.finalText = text;
      return [{ type: 'message', role: 'assistant', text }];
    }
    if (verb === 'done') {
      this.outcome = { status: text as 'ok' };
      this.usage = { ...emptyUsage(), outputTokens: 7 };
      return [];
    }
    throw new AgentProtocolError(`not a line of the format: ${line}`);
  }
}

async function collect(iterable: AsyncIterable<TrajectoryEvent>) {
  const events: TrajectoryEvent[] = [];
  for await (const event of iterable) events.push(event);
  const end = events.at(-1);
  expect(end?.type).toBe('turn.end');
  expect(events.filter((event) => event.type === 'turn.end')).toHaveLength(1);
  return { events, result: (end as { result: TurnResult }).result };
}

const base = { agent: 'fake', argv: ['fake-agent', '--json'], env: { TOKEN: 'lh-1' }, pollMs: 5 };

describe('runAgentTurn', () => {
  it('streams events as lines arrive, split across chunks, and ends with the reported outcome', async () => {
    const process = new ScriptedProcess();
    const started: { argv: string[]; env?: Record<string, string> }[] = [];
    const turn = collect(
      runAgentTurn(sandboxFor(process, started), {
        ...base,
        parser: new LineParser(),
        signal: new AbortController().signal,
      }),
    );
    process.stdout = 'say hel';
    await new Promise((r) => setTimeout(r, 20));
    process.stdout += 'lo\nsay bye\r\ndone ok';
    process.exit(0);
    const { events, result } = await turn;
    expect(events.slice(0, -1)).toEqual([
      { type: 'message', role: 'assistant', text: 'hello' },
      { type: 'message', role: 'assistant', text: 'bye' },
    ]);
    expect(result).toMatchObject({ status: 'ok', finalText: 'bye', usage: { outputTokens: 7 } });
    // The agent runs under `env -i` with its own variables passed by name, never in argv.
    expect(started[0]!.argv.slice(-2)).toEqual(['fake-agent', '--json']);
    expect(started[0]!.argv.join(' ')).not.toContain('lh-1');
    expect(started[0]!.argv[2]).toContain('TOKEN="$TOKEN"');
    expect(started[0]!.env).toEqual({ TOKEN: 'lh-1', LONGHAUL_AGENT_TURN: expect.any(String) });
  });

  it('classifies an exit without a result as a crash and keeps the stderr tail', async () => {
    const process = new ScriptedProcess();
    process.stdout = 'say working\n';
    process.stderr = 'Segmentation fault\n';
    process.exit(139);
    const { events, result } = await collect(
      runAgentTurn(sandboxFor(process), {
        ...base,
        parser: new LineParser(),
        signal: new AbortController().signal,
      }),
    );
    expect(events[0]).toMatchObject({ type: 'message', text: 'working' });
    expect(result.status).toBe('error:crash');
    expect(result.error).toContain('exited with code 139');
    expect(result.error).toContain('Segmentation fault');
  });

  it('classifies an agent the sandbox killed for memory as error:oom', async () => {
    const process = new ScriptedProcess();
    process.stdout = 'say working\n';
    process.exit(137, { oomKilled: true });
    const { result } = await collect(
      runAgentTurn(sandboxFor(process), {
        ...base,
        parser: new LineParser(),
        signal: new AbortController().signal,
      }),
    );
    expect(result.status).toBe('error:oom');
    expect(result.error).toContain('killed for memory');
  });

  it('classifies an agent the sandbox stopped at its disk limit as error:disk', async () => {
    const process = new ScriptedProcess();
    process.stdout = 'say writing\n';
    process.exit(137, { diskLimitHit: true });
    const { result } = await collect(
      runAgentTurn(sandboxFor(process), {
        ...base,
        parser: new LineParser(),
        signal: new AbortController().signal,
      }),
    );
    expect(result.status).toBe('error:disk');
    expect(result.error).toContain('disk limit');
  });

  it('classifies unreadable output as a protocol error', async () => {
    const process = new ScriptedProcess();
    process.stdout = 'say ok\n<html>gateway error</html>\n';
    process.exit(1);
    const { events, result } = await collect(
      runAgentTurn(sandboxFor(process), {
        ...base,
        parser: new LineParser(),
        signal: new AbortController().signal,
      }),
    );
    expect(events.filter((e) => e.type === 'error')).toEqual([
      expect.objectContaining({ errorClass: 'protocol', message: expect.stringContaining('<html>') }),
    ]);
    expect(result.status).toBe('error:protocol');
  });

  it('kills the process when the signal aborts and ends with the reason', async () => {
    const process = new ScriptedProcess();
    process.stdout = 'say started\n';
    const controller = new AbortController();
    const turn = collect(
      runAgentTurn(sandboxFor(process), { ...base, parser: new LineParser(), signal: controller.signal }),
    );
    setTimeout(() => controller.abort('budget'), 20);
    const { events, result } = await turn;
    expect(process.killed).toBe(true);
    expect(events[0]).toMatchObject({ text: 'started' });
    expect(result.status).toBe('budget');
    expect(result.finalText).toBe('started');
  });

  it('ends with timeout after timeoutMs even when the process ignores the kill', async () => {
    const process = new ScriptedProcess({ ignoreKill: true });
    const begun = Date.now();
    const { result } = await collect(
      runAgentTurn(sandboxFor(process), {
        ...base,
        parser: new LineParser(),
        signal: new AbortController().signal,
        timeoutMs: 30,
        stopGraceMs: 50,
      }),
    );
    expect(result.status).toBe('timeout');
    expect(result.error).toContain('30 ms');
    // The process never ends by itself: ending at all shows the turn gave up on it.
    expect(Date.now() - begun).toBeLessThan(120_000);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort('cancelled');
    const process = new ScriptedProcess();
    const { result } = await collect(
      runAgentTurn(sandboxFor(process), { ...base, parser: new LineParser(), signal: controller.signal }),
    );
    expect(result.status).toBe('cancelled');
  });

  it('reports a sandbox that cannot start the agent', async () => {
    const sandbox = {
      start: async () => {
        throw new Error('container is gone');
      },
    } as unknown as Sandbox;
    const { result } = await collect(
      runAgentTurn(sandbox, { ...base, parser: new LineParser(), signal: new AbortController().signal }),
    );
    expect(result).toMatchObject({
      status: 'error:sandbox',
      error: expect.stringContaining('container is gone'),
    });
  });

  it('stops waiting for an agent that reported its result but does not exit', async () => {
    const process = new ScriptedProcess();
    process.stdout = 'say bye\ndone ok\n';
    const { result } = await collect(
      runAgentTurn(sandboxFor(process), {
        ...base,
        parser: new LineParser(),
        signal: new AbortController().signal,
        lingerMs: 20,
      }),
    );
    expect(result.status).toBe('ok');
    expect(process.killed).toBe(true);
  });
});
