import type { Sandbox, SandboxProcess } from '@longhaul/core';

interface Running {
  command: string;
  process: SandboxProcess;
  started: number;
  exit?: number | null;
}

/** Background commands of a session, by handle (`bg-1`, `bg-2`...), each with its own output. */
export class BackgroundProcesses {
  private readonly byHandle = new Map<string, Running>();
  private next = 1;

  async start(sandbox: Sandbox, command: string): Promise<string> {
    const process = await sandbox.start(['sh', '-c', command]);
    const handle = `bg-${this.next++}`;
    const running: Running = { command, process, started: Date.now() };
    this.byHandle.set(handle, running);
    void process.wait().then(
      (result) => {
        running.exit = result.exitCode;
      },
      () => {
        running.exit = null;
      },
    );
    return handle;
  }

  get(handle: string): Running | undefined {
    return this.byHandle.get(handle);
  }

  handles(): string[] {
    return [...this.byHandle.keys()];
  }

  async stop(handle: string): Promise<boolean> {
    const running = this.byHandle.get(handle);
    if (!running) return false;
    if (running.exit === undefined) await running.process.kill().catch(() => {});
    return true;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.handles().map((handle) => this.stop(handle)));
  }
}
