import { readYaml } from '../config/yaml-file.js';
import { type CliCase, cliCaseOf } from './cli-case.js';
import { type HttpCase, httpCaseOf } from './http-case.js';

export type AnyCase = { kind: 'cli'; spec: CliCase } | { kind: 'http'; spec: HttpCase };

/**
 * Reads a case file of either kind, parsing it once: one with a top-level `requests` is an HTTP
 * case, any other a CLI case.
 */
export async function readCase(file: string): Promise<AnyCase> {
  const yaml = await readYaml(file);
  const { value } = yaml;
  const isHttp = typeof value === 'object' && value !== null && 'requests' in value;
  return isHttp ? { kind: 'http', spec: httpCaseOf(yaml) } : { kind: 'cli', spec: cliCaseOf(yaml) };
}
