/** The analysis categories of IDE-Bench (appendix D.1), with the equivalent tools of other agents. */
export type Category = 'read' | 'edit' | 'exec' | 'other';

const read = new Set([
  'read_file',
  'list_dir',
  'codebase_search',
  'grep_search',
  'file_search',
  'Read',
  'Glob',
  'Grep',
  'LS',
]);
const edit = new Set([
  'edit_file',
  'search_replace',
  'write_file',
  'delete_file',
  'edit_notebook',
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'apply_patch',
]);
const exec = new Set(['run_terminal_cmd', 'Bash', 'exec_command', 'shell']);

export function categoryOf(tool: string): Category {
  if (read.has(tool)) return 'read';
  if (edit.has(tool)) return 'edit';
  if (exec.has(tool)) return 'exec';
  return 'other';
}

/** Reading a file's content (Context Loss and Premature Editing count these, not listings or searches). */
export function readsFile(tool: string): boolean {
  return tool === 'read_file' || tool === 'Read';
}

const pathKeys = ['target_file', 'file_path', 'path', 'target_notebook', 'filePath', 'notebook_path'];

/** The file a call is about, workspace-relative when the agent gave an absolute path under `workspace`. */
export function fileOf(input: unknown, workspace?: string): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const record = input as Record<string, unknown>;
  const key = pathKeys.find((k) => typeof record[k] === 'string');
  if (!key) return undefined;
  return normalizePath(record[key] as string, workspace);
}

export function normalizePath(path: string, workspace?: string): string {
  let p = path.trim().replace(/\\/g, '/');
  if (workspace && p.startsWith(`${workspace.replace(/\/$/, '')}/`))
    p = p.slice(workspace.replace(/\/$/, '').length + 1);
  return p.replace(/^\.\//, '');
}
