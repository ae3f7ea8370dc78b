import { readFileSync } from 'node:fs';

/** The CLI package's version (src/ and dist/ both sit beside package.json). */
export const cliVersion = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
