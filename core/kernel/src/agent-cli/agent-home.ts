import type { Sandbox } from '../contracts/sandbox.js';
import { ClassifiedError } from '../contracts/status.js';
import { tail } from './line-buffer.js';

export interface AgentHome {
  /** A fresh directory under the sandbox user's HOME for the agent's config and sessions. */
  dir: string;
  /** The agent user is root (some CLIs refuse to skip permission prompts as root). */
  root: boolean;
}

/**
 * Makes a private state directory for an agent CLI inside the sandbox, outside the workspace so
 * the agent's config, logs and sessions never end up in snapshots.
 */
export async function makeAgentHome(sandbox: Sandbox, name: string): Promise<AgentHome> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`invalid agent home name: ${name}`);
  const script = `id -u && mkdir -p "$HOME/.longhaul" && mktemp -d "$HOME/.longhaul/${name}.XXXXXX"`;
  const result = await sandbox.exec(['/bin/sh', '-c', script], { user: 'agent', timeoutMs: 30_000 });
  const [uid, dir] = result.stdout.trim().split('\n');
  if (result.exitCode !== 0 || !dir)
    throw new ClassifiedError(
      'harness',
      `could not make a state directory for ${name} in the sandbox: ${tail(result.stderr) || `exit code ${result.exitCode}`}`,
    );
  return { dir, root: uid === '0' };
}
