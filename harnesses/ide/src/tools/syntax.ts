import { extname } from 'node:path';
import pythonGrammar from '@ast-grep/lang-python';
import { Lang, parse, registerDynamicLanguage } from '@ast-grep/napi';
import type { Sandbox } from '@longhaul/core';

export interface SyntaxProblem {
  line: number;
  message: string;
}

const treeSitterLanguages: Record<string, string> = {
  '.ts': Lang.TypeScript,
  '.mts': Lang.TypeScript,
  '.cts': Lang.TypeScript,
  '.tsx': Lang.Tsx,
  '.js': Lang.JavaScript,
  '.mjs': Lang.JavaScript,
  '.cjs': Lang.JavaScript,
  '.jsx': Lang.Tsx,
};

let pythonRegistered = false;

function treeSitterProblem(language: string, text: string): SyntaxProblem | undefined {
  if (language === 'python' && !pythonRegistered) {
    registerDynamicLanguage({ python: pythonGrammar });
    pythonRegistered = true;
  }
  const error = parse(language, text)
    .root()
    .find({ rule: { kind: 'ERROR' } });
  if (!error) return undefined;
  const start = error.range().start;
  const snippet = error.text().split('\n')[0]!.slice(0, 80);
  return { line: start.line + 1, message: `cannot parse near column ${start.column + 1}: ${snippet}` };
}

/** Exactly Python's own `ast.parse`, run by the sandbox's python3 (the project's Python version). */
const pythonCheck = [
  'import ast, json, sys',
  'try:',
  '    ast.parse(sys.stdin.read(), sys.argv[1])',
  'except SyntaxError as e:',
  '    print(json.dumps({"line": e.lineno or 0, "msg": e.msg}))',
  '    sys.exit(3)',
].join('\n');

/**
 * Parses Python (with the sandbox's python3, else a tree-sitter grammar) and TypeScript /
 * JavaScript (tree-sitter through ast-grep). Other files are not checked.
 */
export class SyntaxChecker {
  private pythonInSandbox = true;

  constructor(private readonly sandbox: Sandbox) {}

  static checks(path: string): boolean {
    const ext = extname(path).toLowerCase();
    return ext === '.py' || ext in treeSitterLanguages;
  }

  async problem(path: string, text: string, signal?: AbortSignal): Promise<SyntaxProblem | undefined> {
    const ext = extname(path).toLowerCase();
    if (ext === '.py') return this.python(path, text, signal);
    const language = treeSitterLanguages[ext];
    return language ? treeSitterProblem(language, text) : undefined;
  }

  private async python(path: string, text: string, signal?: AbortSignal): Promise<SyntaxProblem | undefined> {
    if (this.pythonInSandbox) {
      const result = await this.sandbox.exec(['python3', '-c', pythonCheck, path], {
        stdin: text,
        timeoutMs: 30_000,
        signal,
        maxOutputBytes: 64 * 1024,
      });
      if (result.exitCode === 0) return undefined;
      if (result.exitCode === 3) {
        const parsed = JSON.parse(result.stdout.trim()) as { line: number; msg: string };
        return { line: parsed.line, message: parsed.msg };
      }
      if (result.exitCode === 127 || result.exitCode === 126) this.pythonInSandbox = false;
    }
    return treeSitterProblem('python', text);
  }
}
