import { afterAll } from 'vitest';
import {
  containmentChecks,
  type EnvironmentContext,
  environmentChecks,
  environmentContext,
  judgeChecks,
} from '../src/index.js';
import { describeSuiteTeeth } from './support/failures.js';
import { type EnvironmentFlaw, HostEnvironment, hostMaxFileBytes } from './support/host-environment.js';

const flaws: [EnvironmentFlaw, string][] = [
  ['ignores-seed', "task's seed"],
  ['runs-through-shell', 'without a shell'],
  ['ignores-stdin', 'cwd, env and stdin'],
  ['leaks-host-env', "host's environment"],
  ['rejects-missing-program', 'does not exist'],
  ['kills-leader-only', 'whole process tree'],
  ['ignores-signal', 'signal aborts'],
  ['never-truncates', 'maxOutputBytes'],
  ['kill-does-nothing', 'long-running process'],
  ['lists-absolute-paths', 'written, read, listed'],
  ['follows-any-path', 'outside the workspace'],
  ['restore-keeps-extra-files', 'round-trip'],
  ['ignores-from', 'opened from a snapshot'],
  ['push-drops-modes', 'push makes'],
  ['exposes-bare-address', 'http URL'],
  ['plain-error-after-close', 'close is idempotent'],
  ['pulls-large-files', 'maxFileSize'],
  ['judge-in-workspace', 'judge area is outside the workspace'],
  ['claims-guarded', 'command run as the agent can neither read'],
  ['claims-guarded', 'out of the judge area but for what share opened'],
  ['reads-whole-file', 'readFile with maxBytes'],
  ['pull-ignores-only', 'pull with only'],
  ['hands-files-away', "agent's to change"],
  ['snapshots-whole', 'stream files through the store'],
];

const containmentFlaws: [EnvironmentFlaw, string][] = [
  ['leaves-detached', 'gone when the command returns'],
  ['sweep-does-nothing', 'runs until sweep()'],
];

const contexts: (EnvironmentContext & { dispose(): Promise<void> })[] = [];
const contextFor = async (flaw?: EnvironmentFlaw, contains = false) => {
  const environment = new HostEnvironment(flaw, contains);
  const context = await environmentContext(environment, {}, hostMaxFileBytes, environment.snapshots());
  contexts.push(context);
  return context;
};

afterAll(async () => {
  for (const context of contexts) await context.dispose();
});

describeSuiteTeeth(
  'environment',
  [...environmentChecks, ...judgeChecks],
  () => contextFor(),
  flaws.map(([flaw, fragment]) => [flaw, () => contextFor(flaw), fragment]),
  { concurrent: true },
);

describeSuiteTeeth(
  'environment containment',
  containmentChecks,
  () => contextFor(undefined, true),
  containmentFlaws.map(([flaw, fragment]) => [flaw, () => contextFor(flaw, true), fragment]),
  { concurrent: true },
);
