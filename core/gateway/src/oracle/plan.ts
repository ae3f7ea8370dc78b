import type { ToolCallPart } from '../model.js';
import { newId } from '../sse.js';
import type { Listing } from './listing.js';
import { isIgnored, listedAs } from './listing.js';
import type { FileSet, SolutionFile } from './solution.js';
import { type AgentTools, quote, shellInput } from './tools.js';

/** Shell scripts stay well under the kernel's per-argument limit (128 KiB on Linux). */
const scriptLimit = 60_000;

export interface Plan {
  /** Tool-call batches: each batch is one assistant message. */
  batches: ToolCallPart[][];
  written: number;
  deleted: number;
  /** Things the offered tools could not do, said in the final message. */
  skipped: string[];
}

export interface PlanInput {
  solution: FileSet;
  tools: AgentTools;
  /** What a listing showed, when there was one. */
  listing?: Listing;
  /** Files the previous reference state had (used for deletions when there is no listing). */
  previous?: FileSet;
  /** The agent's working directory as its prompt names it, for tools that want absolute paths. */
  cwd?: string;
}

function call(name: string, input: unknown): ToolCallPart {
  return { type: 'tool_call', id: newId('toolu_'), name, input };
}

function dirOf(path: string): string | undefined {
  const index = path.lastIndexOf('/');
  return index > 0 ? path.slice(0, index) : undefined;
}

/** A shell snippet that writes one file exactly: a heredoc for text, base64 otherwise. */
export function writeScript(path: string, file: SolutionFile): string[] {
  const dir = dirOf(path);
  const mkdir = dir ? `mkdir -p ${quote(dir)} && ` : '';
  const text = file.content.toString('utf8');
  if (file.text && text.endsWith('\n') && text.length < scriptLimit) {
    let tag = 'LH_EOF';
    while (text.split('\n').includes(tag)) tag += '_';
    return [`${mkdir}cat > ${quote(path)} <<'${tag}'\n${text}${tag}`];
  }
  const encoded = file.content.toString('base64');
  const pieces: string[] = [];
  for (let i = 0; i < encoded.length || i === 0; i += scriptLimit) {
    const redirect = i === 0 ? '>' : '>>';
    pieces.push(
      `${i === 0 ? mkdir : ''}printf '%s' '${encoded.slice(i, i + scriptLimit)}' | base64 -d ${redirect} ${quote(path)}`,
    );
  }
  return pieces;
}

/**
 * Removes files that may or may not exist, then the directories that leaves empty (a reference
 * tree has no empty directories). Not `rm -f`: Codex refuses to run commands of that shape even
 * with approvals bypassed. Ends with status 0 whatever `rmdir` met, so agents do not report a
 * failure.
 */
export function removeScript(paths: string[]): string {
  const dirs = [...new Set(paths.map(dirOf).filter((dir) => dir !== undefined))];
  const files = `for f in ${paths.map(quote).join(' ')}; do if [ -e "$f" ]; then rm -- "$f"; fi; done`;
  if (dirs.length === 0) return files;
  return `${files}\nrmdir -p --ignore-fail-on-non-empty -- ${dirs.map(quote).join(' ')} 2>/dev/null; true`;
}

/** Packs snippets into as few scripts as fit under the limit, in order. */
function pack(snippets: string[]): string[] {
  const scripts: string[] = [];
  let current = '';
  for (const snippet of snippets) {
    if (current && current.length + snippet.length + 1 > scriptLimit) {
      scripts.push(current);
      current = '';
    }
    current = current ? `${current}\n${snippet}` : snippet;
  }
  if (current) scripts.push(current);
  return scripts;
}

function patchAdd(path: string, file: SolutionFile): string {
  const lines = file.content.toString('utf8').replace(/\n$/, '').split('\n');
  return [`*** Add File: ${path}`, ...lines.map((line) => `+${line}`)].join('\n');
}

/**
 * What to do to turn the workspace into the solution. With a listing: write files whose hash
 * differs or that are missing, delete listed files the solution does not have. Without one:
 * write every solution file, delete files the previous reference state had and this one lacks.
 */
export function planChanges(input: PlanInput): Plan {
  const { solution, tools, listing, previous } = input;
  const exists = (path: string) => (listing ? listing.files.has(path) : (previous?.has(path) ?? false));
  const changed = [...solution].filter(
    ([path, file]) => !listing || !listedAs(listing.files.get(path), file),
  );
  const staleSource = listing ? [...listing.files.keys()] : [...(previous?.keys() ?? [])];
  const stale = staleSource.filter((path) => !solution.has(path) && !isIgnored(path));
  const cwd = listing?.cwd ?? input.cwd;
  const at = (path: string, absolute: boolean) => (absolute && cwd ? `${cwd}/${path}` : path);
  const plan: Plan = { batches: [], written: changed.length, deleted: stale.length, skipped: [] };

  if (tools.write) {
    const write = tools.write;
    const removeFirst = write.overwriteNeedsRead
      ? changed.filter(([path]) => exists(path)).map(([p]) => p)
      : [];
    const textFiles = changed.filter(([, file]) => file.text);
    const binaryFiles = changed.filter(([, file]) => !file.text);
    const prep: ToolCallPart[] = [];
    const main: ToolCallPart[] = [];
    if (tools.shell) {
      const removals = [...(tools.delete ? [] : stale), ...removeFirst];
      const dirs = [...new Set(textFiles.map(([path]) => dirOf(path)).filter((dir) => dir !== undefined))];
      const snippets = [
        ...(removals.length > 0 ? [removeScript(removals)] : []),
        ...(dirs.length > 0 ? [`mkdir -p -- ${dirs.map(quote).join(' ')}`] : []),
      ];
      for (const script of pack(snippets)) prep.push(call(tools.shell.name, shellInput(tools.shell, script)));
      for (const script of pack(binaryFiles.flatMap(([path, file]) => writeScript(path, file))))
        main.push(call(tools.shell.name, shellInput(tools.shell, script)));
    } else if (binaryFiles.length > 0) {
      plan.skipped.push(
        `${binaryFiles.length} binary file(s) (no shell tool): ${binaryFiles.map(([p]) => p).join(', ')}`,
      );
    }
    for (const [path, file] of textFiles)
      main.push(
        call(write.name, {
          [write.pathKey]: at(path, write.absolute),
          [write.contentKey]: file.content.toString('utf8'),
        }),
      );
    if (tools.delete)
      for (const path of stale)
        main.push(call(tools.delete.name, { [tools.delete.pathKey]: at(path, tools.delete.absolute) }));
    else if (!tools.shell && stale.length > 0)
      plan.skipped.push(`deleting ${stale.join(', ')} (no delete or shell tool)`);
    plan.batches = [prep, main].filter((batch) => batch.length > 0);
    return plan;
  }

  if (tools.shell) {
    const snippets = [
      ...(stale.length > 0 ? [removeScript(stale)] : []),
      ...changed.flatMap(([path, file]) => writeScript(path, file)),
    ];
    const shell = tools.shell;
    plan.batches = pack(snippets).map((script) => [call(shell.name, shellInput(shell, script))]);
    return plan;
  }

  if (tools.patch) {
    const patch = tools.patch;
    const deletions = [...stale, ...changed.filter(([path]) => exists(path)).map(([path]) => path)];
    const texts = changed.filter(([, file]) => file.text);
    if (texts.length < changed.length) plan.skipped.push('binary files (apply_patch writes text only)');
    const bodies = [
      deletions.map((path) => `*** Delete File: ${path}`),
      texts.map(([path, file]) => patchAdd(path, file)),
    ].filter((body) => body.length > 0);
    plan.batches = bodies.map((body) => {
      const text = ['*** Begin Patch', ...body, '*** End Patch', ''].join('\n');
      return [call(patch.name, patch.custom ? text : { input: text })];
    });
    return plan;
  }
  plan.skipped.push('every file: the agent offers no tool the oracle can write with');
  return plan;
}
