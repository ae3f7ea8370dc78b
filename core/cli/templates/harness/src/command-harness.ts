import type { Harness, HarnessCapabilities, Sandbox, Session, SessionOptions } from '@longhaul/core';
import { CommandSession } from './command-session.js';
import type { Options } from './options.js';

/** A harness whose agent is one command, run in the sandbox for every turn. */
export class CommandHarness implements Harness {
  // A command keeps no conversation between runs: every session starts anew, nothing to resume.
  readonly capabilities: HarnessCapabilities = { resume: false, memoryFiles: [], hooks: false };

  constructor(private readonly options: Options) {}

  /** Checks the program is there before the first turn; what it returns goes into lock.json. */
  async prepare(sandbox: Sandbox): Promise<Record<string, unknown>> {
    const program = this.options.command[0]!;
    const found = await sandbox.exec(['sh', '-c', 'command -v "$1"', 'sh', program]);
    return { command: this.options.command, program: found.stdout.trim() || program };
  }

  async openSession(sandbox: Sandbox, options: SessionOptions): Promise<Session> {
    return new CommandSession(sandbox, this.options, options.model);
  }
}
