import { describe } from 'vitest';
import { programReady } from '../../claude-code/test/support/program.js';
import { describeScriptedHarness } from '../../claude-code/test/support/scripted-conformance.js';
import { bundledBinary, Codex, codexOptions } from '../src/index.js';

describe.skipIf(!programReady('Codex', '@openai/codex', bundledBinary))('the real CLI', () => {
  describeScriptedHarness(
    'codex',
    (gateway) => new Codex(codexOptions.parse({}), gateway),
    (pace) =>
      pace === 'slow'
        ? [
            { toolCalls: [{ name: 'exec_command', input: { cmd: 'sleep 120', yield_time_ms: 120_000 } }] },
            { text: 'waited' },
          ]
        : [{ text: 'first turn done' }, { text: 'second turn done' }],
  );
});
