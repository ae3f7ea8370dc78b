import { extname } from 'node:path';
import goGrammar from '@ast-grep/lang-go';
import pythonGrammar from '@ast-grep/lang-python';
import { registerDynamicLanguage } from '@ast-grep/napi';
import { go } from './go.js';
import { python } from './python.js';
import type { LanguageId, LanguageSpec } from './types.js';
import { javascript, tsx, typescript } from './typescript.js';

export const languages: readonly LanguageSpec[] = [python, typescript, tsx, javascript, go];

let registered = false;

/** Registers the grammars ast-grep does not ship (Python, Go); safe to call more than once. */
export function registerGrammars(): void {
  if (registered) return;
  registerDynamicLanguage({ python: pythonGrammar, go: goGrammar });
  registered = true;
}

const byExtension = new Map(languages.flatMap((spec) => spec.extensions.map((ext) => [ext, spec] as const)));

/** The language of a file by its extension (`.d.ts` files are declarations, not code). */
export function languageOfPath(path: string): LanguageSpec | undefined {
  if (/\.d\.[cm]?ts$/.test(path)) return undefined;
  return byExtension.get(extname(path).toLowerCase());
}

export function languageById(id: LanguageId): LanguageSpec {
  const spec = languages.find((candidate) => candidate.id === id);
  if (!spec) throw new Error(`unknown language "${id}"`);
  return spec;
}
