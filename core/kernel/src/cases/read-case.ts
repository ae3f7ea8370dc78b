import { parseYaml, readYamlText } from '../config/yaml-file.js';
import { CaseFileCache } from './case-cache.js';
import { type CliCase, cliCaseOf } from './cli-case.js';
import { type HttpCase, httpCaseOf } from './http-case.js';

export type AnyCase = { kind: 'cli'; spec: CliCase } | { kind: 'http'; spec: HttpCase };

let sharedCache: CaseFileCache<AnyCase> | undefined;

/** The process's cache, made at first use: LONGHAUL_CACHE_DIR is read when cases are, not when the kernel loads. */
function defaultCache(): CaseFileCache<AnyCase> {
  sharedCache ??= new CaseFileCache<AnyCase>();
  return sharedCache;
}

/**
 * Reads a case file of either kind: one with a top-level `requests` is an HTTP case, any other a
 * CLI case. A file read before (by this process, or by any run through the cache on disk) with
 * the same text is not parsed again (see `CaseFileCache`); a bad file always gets its located error.
 */
export async function readCase(
  file: string,
  options: { cache?: CaseFileCache<AnyCase> } = {},
): Promise<AnyCase> {
  const cache = options.cache ?? defaultCache();
  const text = await readYamlText(file);
  const key = cache.key(text);
  const cached = cache.get(key);
  if (cached) return cached;
  const yaml = parseYaml(text, file);
  const { value } = yaml;
  const isHttp = typeof value === 'object' && value !== null && 'requests' in value;
  const read: AnyCase = isHttp
    ? { kind: 'http', spec: httpCaseOf(yaml) }
    : { kind: 'cli', spec: cliCaseOf(yaml) };
  await cache.set(key, read);
  return read;
}
