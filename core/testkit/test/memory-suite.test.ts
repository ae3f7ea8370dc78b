import type { Memory, MemoryPatch } from '@longhaul/core';
import { type MemoryContextInput, memoryChecks } from '../src/index.js';
import { describeSuiteTeeth, openFakeSandbox } from './support/failures.js';

const good = (): Memory => ({
  async beforeTurn(ctx) {
    return ctx.freshSession ? { suffix: 'Keep notes.' } : {};
  },
  async afterTurn(ctx) {
    await ctx.sandbox.readFile('NOTES.md').catch(() => undefined);
  },
  ownedFiles: ['NOTES.md'],
});

const context = (memory: () => Memory): MemoryContextInput => ({
  fixture: async () => {
    const sandbox = await openFakeSandbox();
    return { memory: memory(), sandbox, dispose: () => sandbox.close() };
  },
});
const withPatch = (patch: unknown) => () => ({ ...good(), beforeTurn: async () => patch as MemoryPatch });

const broken: [string, () => Memory, string][] = [
  ['returns a patch key the kernel does not know', withPatch({ prompt: 'x' }), 'valid patch on every turn'],
  [
    'writes a file outside the workspace',
    withPatch({ files: { '../escape': 'x' } }),
    'valid patch on every turn',
  ],
  [
    'writes binary content as a patch file',
    withPatch({ files: { 'a.bin': new Uint8Array(2) } }),
    'valid patch on every turn',
  ],
  [
    'throws after a failed turn',
    () => ({
      ...good(),
      afterTurn: async (_ctx, result) => {
        if (result.status !== 'ok') throw new Error(`cannot handle ${result.status}`);
      },
    }),
    'ended in an error',
  ],
  [
    'needs the sandbox after the turn',
    () => ({
      ...good(),
      afterTurn: async (ctx) => {
        await ctx.sandbox.list();
      },
    }),
    'sandbox that is gone',
  ],
  ['owns a file outside the workspace', () => ({ ...good(), ownedFiles: ['/etc/notes'] }), 'files it owns'],
];

describeSuiteTeeth(
  'memory',
  memoryChecks,
  () => context(good),
  broken.map(([what, make, fragment]) => [what, () => context(make), fragment]),
);
