import { type ChildProcess, spawn } from 'node:child_process';
import { type Git, GitError } from './git.js';

interface Request {
  resolve(content: Buffer | undefined): void;
  reject(error: Error): void;
}

/**
 * Reads objects through one long-lived `git cat-file --batch`: a file at a commit costs a line
 * written and read, not a process started (which is most of the time a history of thousands of
 * commits takes, on a loaded machine). Requests are answered in order.
 */
export class BlobReader {
  private process: ChildProcess | undefined;
  private queue: Request[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private failure: Error | undefined;

  constructor(readonly git: Git) {}

  private get dir(): string {
    return this.git.dir;
  }

  private start(): ChildProcess {
    if (this.process) return this.process;
    const child = spawn('git', ['-C', this.dir, 'cat-file', '--batch'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const request of this.queue.splice(0)) request.reject(error);
      this.process = undefined;
    };
    child.on('error', (error) =>
      fail(new GitError(`git cat-file (in ${this.dir}) failed: ${error.message}`)),
    );
    child.on('close', (code) => {
      if (this.queue.length > 0 || code !== 0)
        fail(
          new GitError(
            `git cat-file (in ${this.dir}) stopped: ${stderr.trim().split('\n')[0] ?? `exit ${code}`}`,
          ),
        );
      this.process = undefined;
    });
    this.process = child;
    return child;
  }

  /** Answers every request whose reply is complete in the buffer. */
  private drain(): void {
    while (this.queue.length > 0) {
      const newline = this.buffer.indexOf(10);
      if (newline === -1) return;
      const header = this.buffer.subarray(0, newline).toString('utf8');
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.buffer = this.buffer.subarray(newline + 1);
        this.queue.shift()!.resolve(undefined);
        continue;
      }
      const [, type = '', size = ''] = header.split(' ');
      const length = Number(size);
      // The object, then a newline of its own.
      if (this.buffer.length < newline + 1 + length + 1) return;
      const content = this.buffer.subarray(newline + 1, newline + 1 + length);
      this.buffer = this.buffer.subarray(newline + 1 + length + 1);
      this.queue.shift()!.resolve(type === 'blob' ? Buffer.from(content) : undefined);
    }
  }

  /** The object `spec` names (`<commit>:<path>` or an object id) when it is a blob, else undefined. */
  read(spec: string): Promise<Buffer | undefined> {
    if (this.failure) return Promise.reject(this.failure);
    const child = this.start();
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      child.stdin!.write(`${spec}\n`);
    });
  }

  /** A file's text at a commit (`git show <commit>:<path>`), or undefined when there is none. */
  async show(commit: string, path: string): Promise<string | undefined> {
    // The batch protocol is line-based: a path with a line break takes a process of its own.
    if (/[\n\r]/.test(path)) return this.git.show(commit, path);
    return (await this.read(`${commit}:${path}`))?.toString('utf8');
  }

  close(): void {
    this.process?.stdin?.end();
    this.process = undefined;
  }
}
