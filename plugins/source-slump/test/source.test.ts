import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, formatIssue } from '@longhaul/core';
import { describeSource } from '@longhaul/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { optionsSchema } from '../src/options.js';
import { SlumpSource } from '../src/slump-source.js';

const problems = resolve(import.meta.dirname, '../../../problems');
const cleanup: string[] = [];
afterEach(async () => {
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function scriptDir(yaml: string, extra: Record<string, string> = {}): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), 'slump-source-'));
  cleanup.push(base);
  const root = join(base, 'demo');
  await mkdir(root);
  await writeFile(join(root, 'script.yaml'), yaml);
  for (const [name, text] of Object.entries(extra)) await writeFile(join(root, name), text);
  return root;
}

async function loadError(root: string): Promise<string> {
  const error = await new SlumpSource(optionsSchema.parse({ path: root }))
    .load({ baseDir: '/' })
    .catch((e) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map(formatIssue).join('\n');
}

const valid = `id: demo
title: Demo
entrypoint: python3 main.py
language: python
phases: [framing, components, integration]
components:
  - { id: parser, description: Parses things }
  - { id: printer, description: Prints things }
requests:
  - { id: idea, phase: framing, text: An idea }
  - { id: parse, phase: components, text: Parse it, discloses: [{ component: parser, explicitness: 4 }] }
  - { id: wire, phase: integration, text: Wire it, discloses: [{ component: printer, explicitness: 2 }] }
fullSpec: Everything at once.
`;

describe('source slump', () => {
  it('loads requests as steps with their phase and disclosures, the components and the full specification', async () => {
    const [task] = await new SlumpSource(optionsSchema.parse({ path: await scriptDir(valid) })).load({
      baseDir: '/',
    });
    expect(task!.steps.map((step) => [step.index, step.id, step.phase, step.prompt])).toEqual([
      [0, 'idea', 'framing', 'An idea'],
      [1, 'parse', 'components', 'Parse it'],
      [2, 'wire', 'integration', 'Wire it'],
    ]);
    expect(task!.steps[1]!.discloses).toEqual([{ component: 'parser', explicitness: 4 }]);
    expect(task!.components!.map((component) => component.id)).toEqual(['parser', 'printer']);
    expect(task!.fullSpec).toBe('Everything at once.');
    expect(task!.hash).toMatch(/^sha256:/);
  });

  it('reports unknown components, repeated ids and phases that go back, at their line', async () => {
    const bad = valid
      .replace('component: printer, explicitness: 2', 'component: printr, explicitness: 2')
      .replace('{ id: wire, phase: integration', '{ id: parse, phase: framing');
    const message = await loadError(await scriptDir(bad));
    expect(message).toMatch(/script\.yaml:12:\d+: .*unknown component 'printr'.*printer/);
    expect(message).toMatch(/script\.yaml:12:\d+: .*request id 'parse' is given twice/);
    expect(message).toMatch(/phase 'framing' comes after 'components'/);
  });

  it('needs exactly one full specification', async () => {
    expect(await loadError(await scriptDir(valid.replace('fullSpec: Everything at once.\n', '')))).toMatch(
      /no full specification/,
    );
    expect(await loadError(await scriptDir(valid, { 'full-spec.md': '# Spec' }))).toMatch(/given twice/);
  });

  it('loads the shipped quire script: 32 requests in three phases, 18 components, each disclosed', async () => {
    const tasks = await new SlumpSource(optionsSchema.parse({ path: problems })).load({ baseDir: '/' });
    const quire = tasks.find((task) => task.id === 'quire')!;
    expect(quire.steps).toHaveLength(32);
    expect([...new Set(quire.steps.map((step) => step.phase))]).toEqual([
      'framing',
      'components',
      'integration',
    ]);
    expect(quire.components).toHaveLength(18);
    const disclosed = new Set(quire.steps.flatMap((step) => step.discloses!.map((d) => d.component)));
    expect(quire.components!.filter((component) => !disclosed.has(component.id))).toEqual([]);
    expect(quire.fullSpec).toMatch(/^# quire: full specification/);
  });
});

describeSource('slump', () => new SlumpSource(optionsSchema.parse({ path: problems })), { baseDir: '/' });
