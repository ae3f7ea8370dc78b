import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, build, repoRoot } from './cli-build.js';
import { oracleExperiment, imageRef as ref } from './docker-experiment.js';

// A problem whose reference solution needs Python 3.12 (pep701), in the docker environment: the
// task's Python requirement picks the Debian 13 base image (Python 3.13), where it scores strict 1;
// pinned to the Debian 12 image (Python 3.11) it is refused before the run.
const run = promisify(execFile);
const problems = join(import.meta.dirname, 'fixtures/requirements');

const imageRef = (suite: string) => ref('--suite', suite);

let work: string;
let dockerReady = false;

beforeAll(async () => {
  await build();
  dockerReady = prerequisites.docker(
    [imageRef('trixie'), imageRef('bookworm')],
    'longhaul images build --suite trixie',
  );
  work = await mkdtemp(join(tmpdir(), 'longhaul-scbench-docker-'));
}, 620_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const experiment = (name: string, environment: string) =>
  oracleExperiment(join(work, `${name}.yaml`), { name, path: problems, problem: 'pep701', environment });

describe('scbench in docker: the base image chosen by the Python a problem needs', () => {
  it('scores a 3.12-syntax reference solution strict 1 in the Debian 13 image', async (context) => {
    if (!dockerReady) return context.skip();
    const runDir = join(work, 'trixie');
    await run('node', [bin, 'run', await experiment('pep701-docker', 'docker'), '--run-dir', runDir], {
      cwd: repoRoot,
      timeout: 600_000,
    });
    const table = JSON.parse(await readFile(join(runDir, 'solve-rates.json'), 'utf8'));
    expect(table['oracle/just-solve/none']).toMatchObject({ strict: 1, iso: 1, core: 1 });
    const lock = JSON.parse(await readFile(join(runDir, 'lock.json'), 'utf8'));
    expect(JSON.stringify(lock)).toContain(imageRef('trixie'));
    expect(JSON.stringify(lock)).not.toContain(imageRef('bookworm'));
  }, 620_000);

  it('refuses it before the run in the Debian 12 image, naming what is missing', async (context) => {
    if (!dockerReady) return context.skip();
    const bookworm = imageRef('bookworm');
    const file = await experiment('pep701-bookworm', `{ id: docker, options: { image: '${bookworm}' } }`);
    const failed = await run('node', [bin, 'validate', file], { cwd: repoRoot, timeout: 120_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toMatch(
      new RegExp(
        `environment 'docker': task pep701 cannot run in image ${bookworm}: missing python3 >= 3\\.12 \\(\\S+/pep701/config\\.yaml:11\\), python3 is 3\\.11\\.\\d+`,
      ),
    );
  }, 200_000);
});
