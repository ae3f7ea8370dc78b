import { execFileSync, spawnSync } from 'node:child_process';
import { agentCommand } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

function run(argv: string[], env: Record<string, string>, outer: Record<string, string>): string {
  const command = agentCommand(argv, env);
  return execFileSync(command.argv[0]!, command.argv.slice(1), {
    env: { ...outer, ...command.env },
    encoding: 'utf8',
  });
}

describe('agentCommand', () => {
  it('runs the agent with only its own variables and the sandbox basics', () => {
    const output = run(
      ['/usr/bin/env'],
      { TOKEN_FOR_AGENT: 'lh-123', NOTE: 'two words "quoted" $HOME `x`\nnext line' },
      {
        PATH: '/usr/bin:/bin',
        HOME: '/home/agent',
        OPENAI_API_KEY: 'sk-secret',
        ANTHROPIC_API_KEY: 'sk-ant',
      },
    );
    const vars = Object.fromEntries(
      output
        .split(/\n(?=[A-Z_]+=)/)
        .filter(Boolean)
        .map((line) => [
          line.slice(0, line.indexOf('=')),
          line.slice(line.indexOf('=') + 1).replace(/\n$/, ''),
        ]),
    );
    expect(vars).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/agent',
      TMPDIR: '/tmp',
      LANG: 'C.UTF-8',
      TOKEN_FOR_AGENT: 'lh-123',
      NOTE: 'two words "quoted" $HOME `x`\nnext line',
    });
  });

  it('passes arguments through untouched, including ones that look like options or shell syntax', () => {
    const args = ['-p', '--', '-starts with a dash', '$(rm -rf /)', "it's", ''];
    const output = run(['/usr/bin/printf', '[%s]'], {}, { PATH: '/usr/bin:/bin' });
    expect(output).toBe('[]');
    expect(run(['/usr/bin/printf', '[%s]', ...args], {}, { PATH: '/usr/bin:/bin' })).toBe(
      args.map((arg) => `[${arg}]`).join(''),
    );
  });

  it('closes stdin and refuses variable names the shell cannot carry', () => {
    const command = agentCommand(['/bin/cat'], {});
    const cat = spawnSync(command.argv[0]!, command.argv.slice(1), {
      env: { PATH: '/usr/bin:/bin' },
      input: 'a prompt the agent must not wait for',
      encoding: 'utf8',
    });
    expect(cat.stdout).toBe('');
    expect(cat.status).toBe(0);
    expect(() => agentCommand(['true'], { 'BAD-NAME': 'x' })).toThrow(/invalid environment variable name/);
  });
});
