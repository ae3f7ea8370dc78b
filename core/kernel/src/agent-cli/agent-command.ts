/** Variables the agent process takes from the sandbox's environment, with a fallback when unset. */
const inherited: Record<string, string> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/tmp',
  TMPDIR: '/tmp',
  LANG: 'C.UTF-8',
};
const namePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface AgentCommand {
  argv: string[];
  env: Record<string, string>;
}

/**
 * Wraps an agent CLI invocation so the process sees exactly the variables the harness chose
 * (plus PATH, HOME, TMPDIR and LANG from the sandbox), whatever environment the sandbox would
 * otherwise hand down: a provider key set on a host or in an image never reaches the agent.
 * Values travel in the exec environment, not in argv, so they do not show in process listings.
 * Stdin is /dev/null, because agents that find an open stdin wait to read a prompt from it.
 */
export function agentCommand(argv: string[], env: Record<string, string>): AgentCommand {
  const assignments = Object.entries(inherited)
    .filter(([name]) => !(name in env))
    .map(([name, fallback]) => `${name}="\${${name}:-${fallback}}"`);
  for (const name of Object.keys(env)) {
    if (!namePattern.test(name))
      throw new Error(`invalid environment variable name: ${JSON.stringify(name)}`);
    assignments.push(`${name}="$${name}"`);
  }
  const script = `exec /usr/bin/env -i ${assignments.join(' ')} "$@" </dev/null`;
  return { argv: ['/bin/sh', '-c', script, 'agent', ...argv], env };
}
