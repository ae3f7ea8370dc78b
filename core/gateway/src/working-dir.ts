import type { ModelRequest } from './model.js';

/** Where agents say their working directory is: Claude Code's system prompt, Codex's context, the oracle's listing. */
const workingDirPatterns = [
  /Primary working directory: (\/\S+)/g,
  /Working directory: (\/\S+)/g,
  /<cwd>(\/[^<]+)<\/cwd>/g,
  /__LH_CWD__(\/\S+)/g,
];

function texts(request: ModelRequest): string[] {
  return [
    request.system,
    ...request.messages.flatMap((m) =>
      m.content.map((p) => (p.type === 'tool_call' ? '' : p.type === 'text' ? p.text : p.content)),
    ),
  ];
}

/** Working directories a request names, longest first, so they can be blanked wherever they appear. */
export function workingDirs(request: ModelRequest): string[] {
  const dirs = new Set<string>();
  for (const text of texts(request))
    for (const pattern of workingDirPatterns)
      for (const match of text.matchAll(pattern)) {
        const dir = match[1]?.replace(/\/+$/, '');
        if (dir && dir.length > 1) dirs.add(dir);
      }
  return [...dirs].sort((a, b) => b.length - a.length);
}

/** The agent's working directory: the first one the request names, in the order of the patterns. */
export function primaryWorkingDir(request: ModelRequest): string | undefined {
  const all = texts(request);
  for (const pattern of workingDirPatterns)
    for (const text of all) {
      const dir = [...text.matchAll(pattern)][0]?.[1]?.replace(/\/+$/, '');
      if (dir && dir.length > 1) return dir;
    }
  return undefined;
}
