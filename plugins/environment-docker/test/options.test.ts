import { describe, expect, it } from 'vitest';
import docker, { dockerGuarantee, dockerOptions, parseSize } from '../src/index.js';

describe('docker options', () => {
  it('parses sizes as Docker counts them', () => {
    expect(parseSize('512m')).toBe(512 * 1024 * 1024);
    expect(parseSize('4g')).toBe(4 * 1024 ** 3);
    expect(parseSize('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('1000')).toBe(1000);
    expect(() => parseSize('lots')).toThrow('"lots" is not a size');
  });

  it('refuses bad options with the key at fault', () => {
    const bad = dockerOptions.safeParse({ memory: 'plenty', mounts: ['/host:relative/target'], pids: 2 });
    expect(bad.success).toBe(false);
    const keys = bad.error?.issues.map((i) => i.path.join('.'));
    expect(keys).toEqual(expect.arrayContaining(['memory', 'mounts.0', 'pids']));
    expect(dockerOptions.safeParse({ netwrok: 'open' }).success).toBe(false);
  });

  it('says, for validate, what a docker sandbox guarantees: its network, user and limits', () => {
    expect(docker.guarantees?.(dockerOptions.parse({}), { tasks: [] })).toEqual([
      "environment docker: a container per sandbox (namespaces of its own, /proc/sys read-only, no-new-privileges), on an internal network where only the gateway is reachable (internet where a task's environment.network says open); its commands run as uid 1000 (user: root is the container's root); limits per sandbox: 2 CPUs, 512 processes, 4g memory (swap included), 10g disk (one file: RLIMIT_FSIZE; all: the writable layer and workspace measured from the host while commands run, and a storage quota on the layer where the storage driver has one)",
    ]);
    expect(dockerGuarantee(dockerOptions.parse({ network: 'none', disk: '1g', pids: 64 }))).toMatch(
      /only the gateway is reachable; .* 64 processes, 4g memory \(swap included\), 1g disk \(one file: RLIMIT_FSIZE; all: the writable layer and workspace measured from the host/,
    );
  });
});
