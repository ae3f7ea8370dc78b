import { randomBytes } from 'node:crypto';
import { isAbsolute, relative } from 'node:path';
import type { JudgeArea, Sandbox, SandboxSpec } from '@longhaul/core';
import { expect } from 'vitest';
import type { Check } from './checks.js';

/** The context the judge checks need: an environment and a spec (see EnvironmentContext). */
interface JudgeContext {
  environment: { open(spec: SandboxSpec): Promise<Sandbox> };
  spec: SandboxSpec;
}

const text = (data: Uint8Array) => Buffer.from(data).toString('utf8');

/** Shell-quotes one word. */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

async function withJudge(
  context: JudgeContext,
  use: (sandbox: Sandbox, judge: JudgeArea) => Promise<void>,
  spec: Partial<SandboxSpec> = {},
): Promise<void> {
  const sandbox = await context.environment.open({ ...context.spec, ...spec });
  try {
    expect(sandbox.judge, 'the sandbox has no judge area (Sandbox.judge)').toBeDefined();
    await use(sandbox, sandbox.judge as JudgeArea);
  } finally {
    await sandbox.close();
  }
}

/**
 * Tries every way a program could change a file of the judge area, or read it, and prints the
 * name of each that worked. `dir` holds `top.txt` and `tests/hidden.py`.
 */
function attempts(dir: string): string {
  const at = (name: string) => quote(`${dir}/${name}`);
  return [
    `cat ${at('top.txt')} >/dev/null 2>&1 && echo read-top`,
    `cat ${at('tests/hidden.py')} >/dev/null 2>&1 && echo read-hidden`,
    `ls ${at('tests')} >/dev/null 2>&1 && echo listed`,
    `(echo forged > ${at('new.txt')}) 2>/dev/null && echo wrote-new`,
    `(echo forged > ${at('top.txt')}) 2>/dev/null && echo overwrote`,
    `(echo forged >> ${at('tests/hidden.py')}) 2>/dev/null && echo appended`,
    `test -e ${at('top.txt')} && rm -f ${at('top.txt')} 2>/dev/null && test ! -e ${at('top.txt')} && echo removed`,
    `mv ${at('tests')} ${at('moved')} 2>/dev/null && echo renamed`,
    `mkdir ${at('made')} 2>/dev/null && echo made-folder`,
    `ln -s /tmp ${at('link')} 2>/dev/null && echo linked`,
    'true',
  ].join('\n');
}

/** The judge area's rules (see JudgeArea in @longhaul/core); part of every environment's suite. */
export const judgeChecks: Check<JudgeContext>[] = [
  {
    name: 'the judge area is outside the workspace: judge commands read and write it, no pull, listing or snapshot covers it',
    run: (context) =>
      withJudge(context, async (sandbox, judge) => {
        expect(isAbsolute(judge.path)).toBe(true);
        for (const [from, to] of [
          [sandbox.workspace, judge.path],
          [judge.path, sandbox.workspace],
        ] as const) {
          const rel = relative(from, to);
          expect(rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)), `${to} is inside ${from}`).toBe(
            false,
          );
        }
        await judge.writeFile('conf/settings.ini', 'secret=1\n');
        expect(text(await judge.readFile('conf/settings.ini'))).toBe('secret=1\n');
        const read = await sandbox.exec(['cat', `${judge.path}/conf/settings.ini`], { user: 'root' });
        expect(read.stdout, read.stderr).toBe('secret=1\n');
        const wrote = await sandbox.exec(
          [
            'sh',
            '-c',
            `mkdir -p ${quote(`${judge.path}/out`)} && echo done > ${quote(`${judge.path}/out/result`)}`,
          ],
          { user: 'root' },
        );
        expect(wrote.exitCode, wrote.stderr).toBe(0);
        expect(text(await judge.readFile('out/result'))).toBe('done\n');
        await expect(judge.writeFile('../escape.txt', 'x')).rejects.toThrow();
        const paths = (await sandbox.pull()).map((file) => file.path);
        expect(paths.filter((path) => /settings\.ini|result/.test(path))).toEqual([]);
        const listed = (await sandbox.list('', { recursive: true })).map((entry) => entry.path);
        expect(listed.filter((path) => /settings\.ini|result/.test(path))).toEqual([]);
        // A restore or push rewrites the workspace only.
        await sandbox.restore(await sandbox.snapshot());
        await sandbox.push(await sandbox.pull());
        expect(text(await judge.readFile('conf/settings.ini'))).toBe('secret=1\n');
        const ref = await sandbox.snapshot();
        await withJudge(
          context,
          async (_second, fresh) => {
            await expect(
              fresh.readFile('conf/settings.ini'),
              'a new sandbox starts with an empty judge area',
            ).rejects.toThrow();
          },
          { from: ref, purpose: 'scorer' },
        );
      }),
  },
  {
    name: 'where guarded, a command run as the agent can neither read, write, replace nor remove anything of the judge area',
    run: (context) =>
      withJudge(context, async (sandbox, judge) => {
        if (!judge.guarded) return;
        await judge.writeFile('top.txt', 'top\n');
        await judge.writeFile('tests/hidden.py', 'expected = 42\n');
        const result = await sandbox.exec(['sh', '-c', attempts(judge.path)]);
        expect(result.stdout.trim().split('\n').filter(Boolean), 'what the agent managed').toEqual([]);
        expect(text(await judge.readFile('top.txt'))).toBe('top\n');
        expect(text(await judge.readFile('tests/hidden.py'))).toBe('expected = 42\n');
        await expect(judge.readFile('new.txt')).rejects.toThrow();
      }),
  },
  {
    name: 'confine runs the program under test with its streams, exit code, umask 022, the workspace and TMPDIR; where guarded, out of the judge area but for what share opened, unable to signal the judge',
    run: (context) =>
      withJudge(context, async (sandbox, judge) => {
        await judge.writeFile('top.txt', 'top\n');
        await judge.writeFile('tests/hidden.py', 'expected = 42\n');
        await judge.writeFile('assets/data/terms.txt', 'shared\n');
        await judge.share('assets');
        // The judge makes a folder in TMPDIR for the program's output, as a test's tmp_path.
        // A name of its own: where TMPDIR is unset, /tmp may be the host's, shared by checks at once.
        const tmp = `"\${TMPDIR:-/tmp}/longhaul-case-${randomBytes(6).toString('hex')}"`;
        const made = await sandbox.exec(['sh', '-c', `mkdir -m 0777 ${tmp} && echo in > ${tmp}/input`], {
          user: 'root',
        });
        expect(made.exitCode, made.stderr).toBe(0);
        const program = [
          'cat',
          'echo "id=$(id -u) umask=$(umask)"',
          `cat ${quote(`${judge.path}/assets/data/terms.txt`)}`,
          `(cat ${tmp}/input && echo out > ${tmp}/output) || echo no-tmp`,
          'echo made > by-program.txt',
          `(echo forged > ${quote(`${judge.path}/assets/data/terms.txt`)}) 2>/dev/null && echo wrote-shared`,
          'kill -0 "$1" 2>/dev/null && echo signalled-judge',
          attempts(judge.path),
          'exit 3',
        ].join('\n');
        const words = judge.confine(['sh', '-c', 'a b']);
        expect(words.slice(-3), 'confine keeps the argv it was given, at its end').toEqual([
          'sh',
          '-c',
          'a b',
        ]);
        expect(
          words.slice(0, -3).filter((word) => /\s/.test(word)),
          'words of confine with blanks',
        ).toEqual([]);
        // The judge's shell stays the program's parent and hands it its own pid.
        const result = await sandbox.exec(
          ['sh', '-c', '"$@" "$$"; exit $?', 'judge', ...judge.confine(['sh', '-c', program, 'program'])],
          { user: 'root', stdin: 'from the judge\n' },
        );
        expect(result.exitCode, result.stderr).toBe(3);
        const lines = result.stdout.trim().split('\n');
        expect(lines.slice(0, 4)).toEqual([
          'from the judge',
          expect.stringMatching(/^id=\d+ umask=0?022$/),
          'shared',
          'in',
        ]);
        expect(text(await sandbox.readFile('by-program.txt'))).toBe('made\n');
        const output = await sandbox.exec(['sh', '-c', `cat ${tmp}/output; rm -rf ${tmp}`], { user: 'root' });
        expect(output.stdout).toBe('out\n');
        if (!judge.guarded) return;
        expect(lines.slice(4), 'what the program under test managed').toEqual([]);
        expect(text(await judge.readFile('assets/data/terms.txt'))).toBe('shared\n');
        expect(text(await judge.readFile('top.txt'))).toBe('top\n');
        expect(text(await judge.readFile('tests/hidden.py'))).toBe('expected = 42\n');
      }),
  },
];
