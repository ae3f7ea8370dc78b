import { describe } from 'vitest';
import { bundledBinary, ClaudeCode, claudeCodeOptions } from '../src/index.js';
import { programReady } from './support/program.js';
import { describeScriptedHarness } from './support/scripted-conformance.js';

// A slow turn runs a command that waits; Claude Code refuses a bare `sleep`.
const wait = `python3 -c 'import time; time.sleep(120)'`;

describe.skipIf(!programReady('Claude Code', '@anthropic-ai/claude-code', bundledBinary))(
  'the real CLI',
  () => {
    describeScriptedHarness(
      'claude-code',
      (gateway) => new ClaudeCode(claudeCodeOptions.parse({}), gateway),
      (pace) =>
        pace === 'slow'
          ? [{ toolCalls: [{ name: 'Bash', input: { command: wait } }] }, { text: 'waited' }]
          : [{ text: 'first turn done' }, { text: 'second turn done' }],
    );
  },
);
