import type { ToolSpec } from '../model.js';

/** A tool that runs a shell command: Claude Code `Bash`, Codex `exec_command` / `shell`, an IDE terminal. */
export interface ShellTool {
  name: string;
  key: string;
  /** `array`: the command is argv (Codex `shell`), so scripts go through `bash -lc`. */
  form: 'string' | 'array';
  extra: Record<string, unknown>;
}

export interface WriteTool {
  name: string;
  pathKey: string;
  contentKey: string;
  /** Claude Code refuses to overwrite a file it has not read in the session; such files are removed first. */
  overwriteNeedsRead: boolean;
  /** The tool wants absolute paths (Claude Code's does); others get workspace-relative ones. */
  absolute: boolean;
}

export interface DeleteTool {
  name: string;
  pathKey: string;
  absolute: boolean;
}

export interface PatchTool {
  name: string;
  /** Free-form (custom) tool: the patch is the whole input; otherwise it goes in `{input}`. */
  custom: boolean;
}

export interface AgentTools {
  shell?: ShellTool;
  write?: WriteTool;
  delete?: DeleteTool;
  patch?: PatchTool;
}

const shellNames = [
  'Bash',
  'exec_command',
  'shell',
  'bash',
  'run_command',
  'run_terminal_cmd',
  'run_terminal_command',
  'terminal',
  'execute_command',
  'run_shell_command',
];
const writeNames = ['Write', 'write_file', 'create_file', 'write'];
const deleteNames = ['delete_file', 'remove_file', 'delete'];

function properties(tool: ToolSpec): Record<string, { type?: unknown }> {
  return (tool.inputSchema?.properties ?? {}) as Record<string, { type?: unknown }>;
}

function firstKey(tool: ToolSpec, keys: string[]): string | undefined {
  const props = properties(tool);
  return keys.find((key) => key in props);
}

/** Whether the tool's path argument is described as absolute. */
function wantsAbsolute(tool: ToolSpec, pathKey: string): boolean {
  const description = (properties(tool)[pathKey] as { description?: unknown } | undefined)?.description;
  return (
    typeof description === 'string' &&
    /\babsolute\b/i.test(description) &&
    !/\bor relative\b/i.test(description)
  );
}

function byName(tools: ToolSpec[], names: string[]): ToolSpec[] {
  return names.flatMap((name) => tools.filter((tool) => tool.name === name));
}

/** Recognizes the tools the calling agent offers that can write, delete and list files. */
export function detectTools(tools: ToolSpec[]): AgentTools {
  const found: AgentTools = {};
  for (const tool of byName(tools, shellNames)) {
    if (tool.kind !== 'function') continue;
    const key = firstKey(tool, ['command', 'cmd']);
    if (!key) continue;
    const type = properties(tool)[key]?.type;
    const extra: Record<string, unknown> = {};
    if ('description' in properties(tool)) extra.description = 'Update the workspace';
    // Codex truncates command output to a token budget; a workspace listing must arrive whole.
    if ('max_output_tokens' in properties(tool)) extra.max_output_tokens = 200_000;
    found.shell = { name: tool.name, key, form: type === 'array' ? 'array' : 'string', extra };
    break;
  }
  for (const tool of byName(tools, writeNames)) {
    const pathKey = firstKey(tool, ['file_path', 'path', 'filePath', 'target_file', 'filename']);
    const contentKey = firstKey(tool, ['content', 'contents', 'text', 'file_text']);
    if (!pathKey || !contentKey) continue;
    found.write = {
      name: tool.name,
      pathKey,
      contentKey,
      overwriteNeedsRead: tool.name === 'Write',
      absolute: tool.name === 'Write' || wantsAbsolute(tool, pathKey),
    };
    break;
  }
  for (const tool of byName(tools, deleteNames)) {
    const pathKey = firstKey(tool, ['file_path', 'path', 'filePath', 'target_file']);
    if (!pathKey) continue;
    found.delete = { name: tool.name, pathKey, absolute: wantsAbsolute(tool, pathKey) };
    break;
  }
  const patch = tools.find((tool) => tool.name === 'apply_patch');
  if (patch) found.patch = { name: patch.name, custom: patch.kind === 'custom' };
  return found;
}

export function shellInput(tool: ShellTool, script: string): Record<string, unknown> {
  return { [tool.key]: tool.form === 'array' ? ['bash', '-lc', script] : script, ...tool.extra };
}

export function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
