import { describeScriptedHarness } from '../../claude-code/test/support/scripted-conformance.js';
import { Codex, codexOptions } from '../src/index.js';

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
