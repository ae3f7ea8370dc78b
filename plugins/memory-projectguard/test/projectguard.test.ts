import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryContext, TrajectoryEvent, TurnResult } from '@longhaul/core';
import { describeMemory, FakeEnvironment, type FakeSandbox, sampleTask } from '@longhaul/testkit';
import { openTestGateway, scriptedModel as scripted, type TestModels } from '@longhaul/testkit/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { projectGuardOptions } from '../src/options.js';
import { ProjectGuardMemory } from '../src/projectguard.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

const requests = [
  'Use a header of "key: value" lines between --- lines for page metadata. Forget YAML.',
  'I need one slug module: lowercase, dashes, and the second equal slug gets -2.',
  'Give every heading an id, using the same slug function as page URLs.',
];

const slugPy = `import re


def slugify(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class SlugRegistry:
    def __init__(self):
        self.counts = {}

    def unique(self, text):
        return slugify(text)
`;

const json = (value: unknown) => JSON.stringify(value);
const extractorReplies = [
  {
    when: 'Latest request (turn 1)',
    text: json({
      records: [
        {
          op: 'add',
          type: 'design',
          title: 'Front matter format',
          body: 'key: value lines between --- lines.',
        },
        { op: 'add', type: 'resource', title: 'YAML rejected', body: 'YAML would need a dependency.' },
      ],
      edges: [{ from: 'YAML rejected', relation: 'motivates', to: 'Front matter format' }],
    }),
  },
  {
    when: 'Latest request (turn 2)',
    text: json({
      records: [
        {
          op: 'add',
          type: 'decision',
          title: 'One slug module',
          body: 'quire/slug.py: slugify and SlugRegistry.unique numbering repeats -2, -3.',
          codeRefs: ['quire/slug.py'],
        },
        // The same fact again under its title: the merger edits the record instead of adding one.
        {
          op: 'add',
          type: 'design',
          title: 'Front Matter format',
          body: 'key: value lines between --- lines; lists in [a, b].',
        },
      ],
      edges: [{ from: 'One slug module', relation: 'depends_on', to: 'front matter format' }],
    }),
  },
  { when: 'Latest request', text: json({ records: [], edges: [] }) },
];

const forecasterReplies = [
  {
    when: `Current request:\n${requests[2]}`,
    text: json({
      purpose: 'Heading anchors that reuse the page slug rules.',
      commitments: ['DEC-0001', 'NOPE-9'],
      modules: [
        {
          path: 'quire/slug.py',
          action: 'keep',
          why: 'slugify and SlugRegistry already implement the rules',
        },
      ],
      approach: 'revise',
      constraints: ['SlugRegistry.unique(text) stays the only de-duplication'],
      restart: false,
    }),
  },
  {
    when: 'Current request:',
    text: json({
      purpose: 'Next step.',
      commitments: [],
      modules: [],
      approach: 'new',
      constraints: [],
      restart: false,
    }),
  },
];

async function setup(models: TestModels, options: Record<string, unknown> = {}) {
  const { gateway, runDir, dispose } = await openTestGateway(models);
  cleanup.push(dispose);
  const task = sampleTask(3, {
    seed: undefined,
    steps: sampleTask(3).steps.map((s, i) => ({ ...s, prompt: requests[i]! })),
  });
  const sandbox = (await new FakeEnvironment().open({
    runId: 'r',
    trialId: 't1',
    purpose: 'agent',
    task,
    needs: {},
  })) as FakeSandbox;
  const memory = new ProjectGuardMemory(projectGuardOptions.parse(options), 't1', gateway);
  const stateDir = join(runDir, 'memory');
  const context = (turnIndex: number, sessionEvents: TrajectoryEvent[] = []): MemoryContext => ({
    task,
    plan: {
      prompt: requests[turnIndex]!,
      session: 'continue',
      workspace: { action: 'carry' },
      steps: [turnIndex],
      scores: [turnIndex],
      feedbackCycles: 0,
    },
    turnIndex,
    sandbox,
    capabilities: { resume: true, memoryFiles: true, hooks: false } as never,
    stateDir,
    freshSession: turnIndex === 0,
    sessionEvents,
  });
  const result: TurnResult = { status: 'ok', finalText: 'Done.', usage: {} as never, durationMs: 1 };
  return { memory, sandbox, stateDir, context, result };
}

describe('projectguard after a scripted run', () => {
  it('keeps committed records (edited, not duplicated), the edge table and the code skeleton, and briefs the next request with its commitments', async () => {
    const { memory, sandbox, stateDir, context, result } = await setup({
      extractor: scripted(extractorReplies),
      forecaster: scripted(forecasterReplies),
    });
    await memory.beforeTurn(context(0));
    await sandbox.writeFile(
      'quire/frontmatter.py',
      'def parse_front_matter(text, filename):\n    return {}, text\n',
    );
    await memory.afterTurn(context(0), result, []);
    await memory.beforeTurn(context(1));
    await sandbox.writeFile('quire/slug.py', slugPy);
    await memory.afterTurn(context(1), result, [{ type: 'compaction', trigger: 'auto' }]);

    const semantic = join(stateDir, 'semantic');
    expect(await readdir(join(semantic, 'design'))).toEqual(['DSN-0001-front-matter-format.md']);
    expect(await readdir(join(semantic, 'decision'))).toEqual(['DEC-0001-one-slug-module.md']);
    expect(await readdir(join(semantic, 'resource'))).toEqual(['RES-0001-yaml-rejected.md']);
    const design = await readFile(join(semantic, 'design', 'DSN-0001-front-matter-format.md'), 'utf8');
    expect(design).toMatch(/updatedTurn: 1/);
    expect(design).toMatch(/lists in \[a, b\]/);
    expect(await readFile(join(semantic, 'edges.tsv'), 'utf8')).toBe(
      'from\trelation\tto\tturn\nRES-0001\tmotivates\tDSN-0001\t0\nDEC-0001\tdepends_on\tDSN-0001\t1\n',
    );
    const skeleton = JSON.parse(await readFile(join(stateDir, 'structural', 'skeleton.json'), 'utf8'));
    expect(skeleton['quire/slug.py']).toMatchObject({
      functions: ['slugify(text)'],
      classes: [{ name: 'SlugRegistry', methods: ['__init__(self)', 'unique(self, text)'] }],
      publicSymbols: ['slugify', 'SlugRegistry'],
    });
    expect(Object.keys(skeleton).sort()).toEqual(['quire/frontmatter.py', 'quire/slug.py']);

    const patch = await memory.beforeTurn(context(2));
    expect(patch.restartSession).toBeUndefined();
    expect(patch.prefix).toContain(
      'Purpose of this request: Heading anchors that reuse the page slug rules.',
    );
    expect(patch.prefix).toContain(
      '- DEC-0001 (decision) One slug module: quire/slug.py: slugify and SlugRegistry.unique',
    );
    expect(patch.prefix).toContain(
      '- keep quire/slug.py: slugify and SlugRegistry already implement the rules',
    );
    expect(patch.prefix).toContain('SlugRegistry.unique(text) stays the only de-duplication');
    expect(patch.prefix).not.toContain('Front matter format');
    expect(patch.prefix).not.toContain('NOPE-9');

    const meta = JSON.parse(await readFile(join(stateDir, 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ turns: 2, records: 3, edges: 2, compactions: 1, restarts: 0, briefs: 3 });
    expect(meta.stateBytes).toBeGreaterThan(500);
    expect(sandbox.text()).not.toHaveProperty('CLAUDE.md');
  });

  it('restarts proactively when the session is nearly full, seeding it with the whole project state', async () => {
    const { memory, sandbox, stateDir, context, result } = await setup({
      extractor: scripted(extractorReplies),
      forecaster: scripted(forecasterReplies),
    });
    await memory.beforeTurn(context(0));
    await sandbox.writeFile('quire/slug.py', slugPy);
    await memory.afterTurn(context(0), result, []);
    const full: TrajectoryEvent[] = [{ type: 'usage', usage: { inputTokens: 170_000, outputTokens: 2_000 } }];
    const patch = await memory.beforeTurn(context(1, full));
    expect(patch.restartSession).toBe(true);
    expect(patch.prefix).toMatch(/^## Project state \(this is a fresh session of an ongoing project\)/);
    expect(patch.prefix).toContain('Front matter format');
    expect(patch.prefix).toContain(
      '- quire/slug.py\n  - class SlugRegistry: __init__(self), unique(self, text)',
    );
    const restarts = await readFile(join(stateDir, 'history', 'restarts.jsonl'), 'utf8');
    expect(JSON.parse(restarts)).toMatchObject({ turn: 1, forecasterAsked: false });
  });

  it('falls back to a brief of the records sharing words with the request when the forecaster fails', async () => {
    const { memory, sandbox, context, result } = await setup({
      extractor: scripted(extractorReplies),
      forecaster: scripted([]),
    });
    await memory.beforeTurn(context(0));
    await memory.afterTurn(context(0), result, []);
    await memory.beforeTurn(context(1));
    await sandbox.writeFile('quire/slug.py', slugPy);
    await memory.afterTurn(context(1), result, []);
    const patch = await memory.beforeTurn(context(2));
    expect(patch.prefix).toContain('Not forecast');
    expect(patch.prefix).toContain('DEC-0001 (decision) One slug module');
  });

  it('writes the brief into CLAUDE.md, AGENTS.md or a hook instead of the prompt when asked', async () => {
    for (const [injection, file] of [
      ['claude-md', 'CLAUDE.md'],
      ['agents-md', 'AGENTS.md'],
      ['hooks', '.projectguard/brief.md'],
    ] as const) {
      const { memory, context } = await setup(
        { extractor: scripted(extractorReplies), forecaster: scripted(forecasterReplies) },
        { injection },
      );
      const patch = await memory.beforeTurn(context(0));
      expect(patch.prefix).toBeUndefined();
      expect(patch.files?.[file]).toContain('## Project brief');
      expect(memory.ownedFiles).toContain(file);
      if (injection === 'hooks') expect(patch.files?.['.claude/settings.json']).toContain('UserPromptSubmit');
    }
  });
});

describeMemory('projectguard', async () => {
  const { gateway, dispose } = await openTestGateway({
    extractor: scripted(extractorReplies),
    forecaster: scripted(forecasterReplies),
  });
  const sandbox = await new FakeEnvironment().open({
    runId: 'r',
    trialId: 't1',
    purpose: 'agent',
    task: sampleTask(1, { seed: undefined }),
    needs: {},
  });
  return {
    memory: new ProjectGuardMemory(projectGuardOptions.parse({}), 't1', gateway),
    sandbox,
    dispose,
  };
});
