import { readYaml } from '../config/yaml-file.js';
import { type CliCase, readCliCase } from './cli-case.js';
import { type HttpCase, readHttpCase } from './http-case.js';

export type AnyCase = { kind: 'cli'; spec: CliCase } | { kind: 'http'; spec: HttpCase };

/** Reads a case file of either kind: one with a top-level `requests` is an HTTP case, any other a CLI case. */
export async function readCase(file: string): Promise<AnyCase> {
  const { value } = await readYaml(file);
  const isHttp = typeof value === 'object' && value !== null && 'requests' in value;
  return isHttp
    ? { kind: 'http', spec: await readHttpCase(file) }
    : { kind: 'cli', spec: await readCliCase(file) };
}
