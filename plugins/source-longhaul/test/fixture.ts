import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { testFolder } from '@longhaul/testkit';

/** A small valid task; tests overwrite or add files to break it one way at a time. */
export const validTask: Record<string, string> = {
  'task.yaml':
    'id: echo\ntitle: Echo\nentrypoint: python3 main.py\nlanguage: python\ntimeouts:\n  caseMs: 5000\n',
  'steps/01-echo/spec.md': 'Run `{{entrypoint}} hello` and print hello.\n',
  'steps/01-echo/cases/core/hello.yaml': 'argv: [hello]\nexpect:\n  stdout: { text: "hello\\n" }\n',
  'steps/01-echo/solution/main.py': 'import sys\nprint(sys.argv[1])\n',
  'steps/02-upper/spec.md': 'Add `--upper`: `{{ entrypoint }} --upper hi` prints HI.\n',
  'steps/02-upper/step.yaml': 'title: Upper case\nphase: final\n',
  'steps/02-upper/cases/error/no-args.yaml':
    'argv: []\nexpect:\n  exitCode: 2\n  stderr: { regex: "usage" }\n',
};

export async function writeTree(files: Record<string, string>, root?: string): Promise<string> {
  const dir = root ?? (await testFolder('longhaul-source-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/** A problems dir holding one task directory `echo` made of `files`. */
export async function problemsWith(files: Record<string, string>): Promise<string> {
  const root = await testFolder('longhaul-problems-');
  await writeTree(files, join(root, 'echo'));
  return root;
}
