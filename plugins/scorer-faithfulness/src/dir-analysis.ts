import { basename, extname } from 'node:path';
import type { RepoView } from './repo-view.js';

/** A public symbol a module defines at top level. */
export interface ExportedSymbol {
  module: string;
  name: string;
  /** Files other than the defining one that import the module and use the name. */
  reusedBy: string[];
}

export interface DirAnalysis {
  exported: number;
  reused: number;
  symbols: ExportedSymbol[];
}

const python = ['.py'];
const script = ['.ts', '.tsx', '.mts', '.js', '.jsx', '.mjs'];

const pythonDefinition = /^(?:async\s+def|def|class)\s+([A-Za-z][A-Za-z0-9_]*)/gm;
const scriptDefinition =
  /^export\s+(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;

/** Test code validates modules; it does not integrate them, so it neither exports nor reuses. */
export function isTestFile(path: string): boolean {
  const name = basename(path);
  return (
    /(^|\/)(tests?|__tests__|spec)\//.test(path) ||
    /^test_.*\.py$/.test(name) ||
    /_test\.py$/.test(name) ||
    /\.(test|spec)\.[cm]?[jt]sx?$/.test(name) ||
    name === 'conftest.py'
  );
}

function moduleStem(path: string): string {
  return basename(path, extname(path));
}

/** Whether `text` (a file in `language`) imports the module at `path`. */
function imports(text: string, path: string, language: 'python' | 'script'): boolean {
  const stem = moduleStem(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (language === 'python') {
    const dotted = path.replace(/\.py$/, '').replaceAll('/', '.');
    const packageName = dotted.endsWith('.__init__') ? dotted.slice(0, -'.__init__'.length) : undefined;
    const names = [stem, ...(packageName ? [packageName.split('.').at(-1)!] : [])].join('|');
    return new RegExp(
      `^\\s*(?:from\\s+[\\w.]*\\b(?:${names})\\b[\\w.]*\\s+import|import\\s+[\\w., ]*\\b(?:${names})\\b|from\\s+\\.+\\s+import\\s+[\\w, ()]*\\b(?:${names})\\b)`,
      'm',
    ).test(text);
  }
  const target = stem === 'index' ? basename(path.slice(0, path.lastIndexOf('/'))) : stem;
  return new RegExp(`(?:from|import|require\\()\\s*['"][^'"]*\\b${target}(?:\\.[cm]?[jt]sx?)?['"]`).test(
    text,
  );
}

/**
 * The dependency integration ratio's inputs: public symbols exported by standalone modules (every
 * non-test source file but the entry files) and the subset that downstream code (any other
 * non-test source file, the entry files included) imports and uses.
 */
export function analyzeDir(repo: RepoView, entryFiles: readonly string[] = []): DirAnalysis {
  const sources = [...repo.files].filter(
    ([path]) => [...python, ...script].includes(extname(path)) && !isTestFile(path),
  );
  const entries = new Set(entryFiles.map((file) => file.replace(/^\.?\/+/, '')));
  const symbols: ExportedSymbol[] = [];
  for (const [path, text] of sources) {
    if (entries.has(path)) continue;
    const language = python.includes(extname(path)) ? 'python' : 'script';
    const definition = language === 'python' ? pythonDefinition : scriptDefinition;
    const names = new Set([...text.matchAll(definition)].map((match) => match[1]!));
    for (const name of names) {
      if (name.startsWith('_')) continue;
      const word = new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`);
      const reusedBy = sources
        .filter(
          ([other, otherText]) =>
            other !== path && word.test(otherText) && imports(otherText, path, language),
        )
        .map(([other]) => other);
      symbols.push({ module: path, name, reusedBy });
    }
  }
  return {
    exported: symbols.length,
    reused: symbols.filter((symbol) => symbol.reusedBy.length > 0).length,
    symbols,
  };
}

/** Files an entrypoint command names (`python3 main.py` → main.py, `node dist/cli.js` → dist/cli.js). */
export function entryFilesOf(entrypoint: string): string[] {
  return entrypoint
    .split(/\s+/)
    .filter((word) => [...python, ...script].includes(extname(word)))
    .map((word) => word.replace(/^\.?\/+/, ''));
}
