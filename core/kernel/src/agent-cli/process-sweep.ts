import type { Sandbox } from '../contracts/sandbox.js';

/** The variable that marks every process an agent turn starts, whatever its process group. */
export const turnMarker = 'LONGHAUL_AGENT_TURN';

// Agents start their tools in new sessions (Claude Code's Bash, Codex's PTYs), so killing the
// agent's process group leaves them running, reparented to init. They all inherit the marker.
const sweepScript = `for p in /proc/[0-9]*; do
  if tr '\\0' '\\n' < "$p/environ" 2>/dev/null | grep -qx "${turnMarker}=$1"; then kill -9 "\${p#/proc/}" 2>/dev/null; fi
done; exit 0`;

/** Kills every process in the sandbox that carries this turn's marker (best effort, Linux /proc). */
export async function sweepProcesses(sandbox: Sandbox, marker: string): Promise<void> {
  try {
    await sandbox.exec(['/bin/sh', '-c', sweepScript, 'sweep', marker], { user: 'agent', timeoutMs: 15_000 });
  } catch {
    // A sandbox that is gone has nothing left to sweep.
  }
}
