/** Every tool the harness knows, in the order they are offered. */
export const toolNames = [
  'read_file',
  'list_dir',
  'codebase_search',
  'grep_search',
  'file_search',
  'edit_file',
  'search_replace',
  'write_file',
  'delete_file',
  'create_directory',
  'run_terminal_cmd',
  'edit_notebook',
  'api_call',
  'database_query',
  'websocket_test',
  'web_search',
  'create_diagram',
  'ui_test',
] as const;

/**
 * The tools of IDE-Bench's released harness, in the order its schemas list them
 * (harness.py, EnhancedTools.tools_info), and after them the two its dispatcher answers without
 * offering them (LiteLLMAgentHarness._execute_tool_call: create_directory, list_files).
 */
export const upstreamToolNames = [
  'codebase_search',
  'read_file',
  'run_terminal_cmd',
  'list_dir',
  'grep_search',
  'edit_file',
  'write_file',
  'search_replace',
  'file_search',
  'delete_file',
  'web_search',
  'create_diagram',
  'edit_notebook',
  'api_call',
  'database_query',
  'ui_test',
  'create_directory',
  'list_files',
] as const;

export type PaperToolName = (typeof toolNames)[number];
export type UpstreamToolName = (typeof upstreamToolNames)[number];
export type ToolName = PaperToolName | UpstreamToolName;

/** Offered only to full-stack (MERN) tasks. */
export const fullStackTools: readonly PaperToolName[] = ['api_call', 'database_query', 'websocket_test'];

/** Listed by the paper but not available in its evaluation; offered only when asked for. */
export const unavailableTools: readonly PaperToolName[] = ['web_search', 'create_diagram', 'ui_test'];
