import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '@longhaul/core';

/** A JSON-lines file appended to in order, off the request path; `flush` waits for the writes. */
export class JsonlFile {
  private queue = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly log?: Logger,
  ) {}

  append(value: unknown, redact: (line: string) => string = (line) => line): void {
    const line = redact(JSON.stringify(value));
    this.queue = this.queue
      .then(async () => {
        await mkdir(dirname(this.file), { recursive: true });
        await appendFile(this.file, `${line}\n`);
      })
      .catch((error) => this.log?.error(`gateway: cannot append to ${this.file}: ${String(error)}`));
  }

  flush(): Promise<void> {
    return this.queue;
  }
}
