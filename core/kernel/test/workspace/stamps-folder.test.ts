import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeStampsFolder, removeStaleStampsFolders } from '../../src/workspace/stamps-folder.js';

let dir: string;
let systemTemp: string | undefined;

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stamps-folder-test-'));
  systemTemp = process.env.TMPDIR;
  process.env.TMPDIR = dir;
});

afterEach(async () => {
  if (systemTemp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = systemTemp;
  await rm(dir, { recursive: true, force: true });
});

describe('stamps folders in the system temp folder', () => {
  it('are removed by the next process once the runner that made them was killed', async () => {
    const killed = `longhaul-stamps-${deadPid()}-Ab12Cd`;
    const live = `longhaul-stamps-${process.pid}-Ef34Gh`;
    for (const name of [killed, live, 'longhaul-stamps-notapid', 'unrelated']) mkdirSync(join(dir, name));

    const made = await makeStampsFolder();

    expect(made.startsWith(join(dir, `longhaul-stamps-${process.pid}-`))).toBe(true);
    expect(existsSync(join(dir, killed))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(
      [live, 'longhaul-stamps-notapid', made.slice(dir.length + 1), 'unrelated'].sort(),
    );
  });

  it('are what prune removes: only those of ended processes', async () => {
    const killed = `longhaul-stamps-${deadPid()}-Ab12Cd`;
    const live = `longhaul-stamps-${process.pid}-Ef34Gh`;
    mkdirSync(join(dir, killed, 'deep'), { recursive: true });
    mkdirSync(join(dir, live));

    expect(await removeStaleStampsFolders(dir)).toEqual([killed]);
    expect(readdirSync(dir)).toEqual([live]);
  });
});
