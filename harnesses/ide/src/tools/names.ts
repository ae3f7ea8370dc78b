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

export type ToolName = (typeof toolNames)[number];

/** Offered only to full-stack (MERN) tasks. */
export const fullStackTools: readonly ToolName[] = ['api_call', 'database_query', 'websocket_test'];

/** Listed by the paper but not available in its evaluation; offered only when asked for. */
export const unavailableTools: readonly ToolName[] = ['web_search', 'create_diagram', 'ui_test'];
