import type { ModelGateway } from '../contracts/gateway.js';
import type { ModelEndpoint, SessionOptions } from '../contracts/harness.js';
import type { Sandbox } from '../contracts/sandbox.js';
import { ClassifiedError } from '../contracts/status.js';
import { tail } from './line-buffer.js';

/** The error of a model-driven harness in an experiment without `models:` (no gateway). */
export function needsModels(harness: string): ClassifiedError {
  return new ClassifiedError(
    'harness',
    `harness '${harness}' talks to a model through the run's gateway, and no gateway is running: the experiment needs a \`models:\` section (e.g. \`models: { oracle: { backend: oracle } }\`)`,
  );
}

/**
 * The session's model endpoint: the one the kernel passed, else the gateway's for the trial and
 * `model`, the harness's gateway model (undefined: the gateway's default model).
 */
export async function agentEndpoint(
  harness: string,
  gateway: ModelGateway | undefined,
  sandbox: Sandbox,
  options: SessionOptions,
  model?: string,
): Promise<ModelEndpoint> {
  if (options.model) return options.model;
  if (!gateway) throw needsModels(harness);
  return gateway.endpoint(options.trialId, sandbox.hostAddress, model);
}

export interface AgentBinary {
  /** Harness id, for messages. */
  harness: string;
  /** npm package that pins the agent, for the fix in the message. */
  packageName: string;
  executable: string;
  expected: string;
}

/**
 * Runs `executable --version` in the sandbox and checks it is the version the experiment asks
 * for. Installing another version at run time is not possible offline, so a mismatch is an error.
 */
export async function checkAgentVersion(sandbox: Sandbox, binary: AgentBinary): Promise<string> {
  const result = await sandbox.exec([binary.executable, '--version'], { user: 'agent', timeoutMs: 60_000 });
  if (result.exitCode !== 0)
    throw new ClassifiedError(
      'harness',
      `${binary.harness}: ${binary.executable} does not run in the sandbox (exit code ${result.exitCode}): ${tail(result.stderr || result.stdout)}. In a container, mount the directory of ${binary.packageName}'s native binary (the environment's mounts) or set the harness option executable`,
    );
  const printed = result.stdout.trim();
  const version = /(\d+\.\d+\.\d+[^\s)]*)/.exec(printed)?.[1];
  if (version !== binary.expected)
    throw new ClassifiedError(
      'harness',
      `${binary.harness}: the experiment asks for version ${binary.expected} but ${binary.executable} is ${version ?? `'${printed}'`}; install ${binary.packageName}@${binary.expected} or set version: ${version ?? printed}`,
    );
  return version;
}
