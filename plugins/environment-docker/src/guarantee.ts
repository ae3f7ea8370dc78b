import type { DockerOptions } from './options.js';

/** What a docker sandbox of these options gives, in one line: what `longhaul validate` prints. */
export function dockerGuarantee(options: DockerOptions): string {
  const network =
    options.network === 'open'
      ? 'a network with internet access'
      : options.network === 'none'
        ? 'an internal network where only the gateway is reachable'
        : "an internal network where only the gateway is reachable (internet where a task's environment.network says open)";
  const disk = `${options.disk} disk (one file: RLIMIT_FSIZE; all: the writable layer and workspace measured from the host while commands run, and a storage quota on the layer where the storage driver has one)`;
  return `environment docker: a container per sandbox (namespaces of its own, /proc/sys read-only, no-new-privileges), on ${network}; its commands run as uid 1000 (user: root is the container's root); limits per sandbox: ${options.cpus} CPUs, ${options.pids} processes, ${options.memory} memory (swap included), ${disk}`;
}
