import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  ConfigError,
  type ConfigIssue,
  checkYaml,
  closest,
  readDirectoryFiles,
  readYaml,
  type Step,
  sha256,
  type Task,
} from '@longhaul/core';
import { type ScriptFile, scriptFileSchema } from './script-file.js';

/** Files next to a script that are not part of the task (replies of scripted models, caches). */
const notTask = new Set(['scripted', '__pycache__', '.DS_Store']);

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

/** Checks that ids are unique, disclosures name components, and phases come in order. */
function crossCheck(
  script: ScriptFile,
  issue: (path: (string | number)[], message: string, suggestion?: string) => void,
) {
  const componentIds = script.components.map((component) => component.id);
  const seenComponents = new Set<string>();
  script.components.forEach((component, index) => {
    if (seenComponents.has(component.id))
      issue(['components', index, 'id'], `component id '${component.id}' is given twice`);
    seenComponents.add(component.id);
  });
  const seenRequests = new Set<string>();
  let phaseIndex = 0;
  script.requests.forEach((request, index) => {
    if (seenRequests.has(request.id))
      issue(['requests', index, 'id'], `request id '${request.id}' is given twice`);
    seenRequests.add(request.id);
    if (script.phases) {
      const at = script.phases.indexOf(request.phase);
      if (at === -1)
        issue(
          ['requests', index, 'phase'],
          `unknown phase '${request.phase}' (phases: ${script.phases.join(', ')})`,
          closest(request.phase, script.phases),
        );
      else if (at < phaseIndex)
        issue(
          ['requests', index, 'phase'],
          `phase '${request.phase}' comes after '${script.phases[phaseIndex]}'; phases must not go back`,
        );
      else phaseIndex = at;
    }
    request.discloses.forEach((disclosure, position) => {
      if (!seenComponents.has(disclosure.component))
        issue(
          ['requests', index, 'discloses', position, 'component'],
          `unknown component '${disclosure.component}'`,
          closest(disclosure.component, componentIds),
        );
    });
  });
}

/** Loads one script directory (holding script.yaml) as a task whose steps are its requests. */
export async function loadScript(root: string): Promise<Task> {
  const file = join(root, 'script.yaml');
  const yaml = await readYaml(file);
  const checked = checkYaml(yaml, scriptFileSchema);
  if (checked.data === undefined) throw new ConfigError(checked.issues);
  const script = checked.data;
  const issues: ConfigIssue[] = [];
  const issue = (path: (string | number)[], message: string, suggestion?: string) =>
    issues.push(yaml.issue(path, message, suggestion));
  if (script.id !== basename(root))
    issue(['id'], `script id must equal its directory name '${basename(root)}'`);
  crossCheck(script, issue);
  const specFile = join(root, 'full-spec.md');
  const fileSpec = (await exists(specFile)) ? await readFile(specFile, 'utf8') : undefined;
  if (fileSpec !== undefined && script.fullSpec !== undefined)
    issue(['fullSpec'], 'the full specification is given twice: here and in full-spec.md; keep one');
  const fullSpec = script.fullSpec ?? fileSpec;
  if (fullSpec === undefined)
    issue(
      [],
      'no full specification: add fullSpec or a full-spec.md (the single-shot control gives it to the agent)',
    );
  if (issues.length > 0) throw new ConfigError(issues);
  const steps: Step[] = script.requests.map((request, index) => ({
    id: request.id,
    index,
    title: request.id,
    prompt: request.text.trimEnd(),
    phase: request.phase,
    discloses: request.discloses,
    metadata: {},
  }));
  const seed = join(root, 'seed');
  const files = (await readDirectoryFiles(root)).filter(
    (entry) => !entry.path.split('/').some((part) => notTask.has(part)),
  );
  return {
    id: script.id,
    title: script.title,
    description: script.description,
    source: 'slump',
    root,
    entrypoint: script.entrypoint,
    language: script.language,
    environment: script.environment,
    seed: (await exists(seed)) ? seed : undefined,
    steps,
    components: script.components,
    fullSpec: fullSpec!.trimEnd(),
    timeouts: { caseMs: 10_000 },
    hash: `sha256:${sha256(files.map((entry) => `${entry.path}\0${sha256(entry.data)}\n`).join(''))}`,
    metadata: {
      ...script.metadata,
      phases: script.phases ?? [...new Set(script.requests.map((r) => r.phase))],
    },
  };
}
