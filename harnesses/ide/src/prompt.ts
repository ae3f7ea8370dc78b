/** The system prompt every model receives in IDE-Bench (paper, appendix F.4), verbatim. */
export const paperSystemPrompt = `You are a powerful coding assistant with comprehensive development capabilities. You have access to the following tools:

SEARCH & DISCOVERY:

- codebase_search: Semantic search through codebase to find relevant code snippets
- grep_search: Fast regex-based text search with file filtering
- file_search: Fuzzy search for files by name
- list_dir: List directory contents for exploration

FILE OPERATIONS:

- read_file: Read file contents with optional line range support
- edit_file: Propose structured edits to files
- search_replace: Find and replace text in files
- write_file: Create new files or overwrite existing ones
- delete_file: Remove files from the filesystem

EXECUTION & AUTOMATION:

- run_terminal_cmd: Execute shell commands (with background support)
- create_directory: Create directory structures

SPECIALIZED TOOLS:

- edit_notebook: Edit Jupyter notebook cells
- create_diagram: Generate Mermaid diagrams
- web_search: Search the web for information (when available)

MERN STACK TOOLS:

- api_call: Make HTTP requests to test REST API endpoints
- database_query: Execute MongoDB queries (find, insert, update, delete, aggregate)
- websocket_test: Test Socket.IO real-time functionality

- \`ui_test\`: Browser automation for React frontend testing (screenshot, click, type, navigate)

WORKFLOW GUIDELINES:

1. Break down complex tasks into steps
2. Use search tools to understand the codebase first
3. Read relevant files before making changes
4. Use appropriate tools for the task (semantic search vs grep vs file search)
5. Provide clear explanations with each tool use
6. Test changes when possible using terminal commands

FOR MERN STACK APPLICATIONS:

1. Identify if you're working with a MERN (MongoDB, Express, React, Node.js) stack
2. Use \`api_call\` to test backend endpoints after making changes
3. Use \`database_query\` to verify data persistence in MongoDB
4. Use \`websocket_test\` for real-time features (chat, notifications, live updates)
5. Use \`ui_test\` to verify frontend functionality and user interactions
6. Look for \`server/ directory (backend)\`, \`client/ directory (frontend)\`, and \`package.json\` files

Always explain your reasoning and approach clearly.`;

/** The system prompt of a session: the paper's (or the experiment's replacement) plus any extra text. */
export function systemPrompt(replacement: string | undefined, extra: string | undefined): string {
  return [replacement ?? paperSystemPrompt, extra].filter((part) => part?.trim()).join('\n\n');
}

/**
 * A prompt file as the released harness loads it for the system message
 * (LiteLLMAgentHarness._load_system_prompt): leading `#` lines and blank lines dropped.
 */
export function withoutHeader(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  return start < 0 ? '' : lines.slice(start).join('\n').trim();
}

/**
 * What a session is told before the task, by profile. Paper: the system prompt (F.4, or the
 * replacement), and the task as the user message. Upstream: its prompt file is both the system
 * message (without its header) and the start of the first user message, before the task block
 * (agent_utils.py `deploy_agent_in_container` sends `base_prompt + task`); without a file the
 * paper's prompt stands in for it.
 */
export function sessionPrompts(
  profile: 'paper' | 'upstream',
  base: string | undefined,
  extra: string | undefined,
): { system: string; firstMessagePrefix?: string } {
  if (profile === 'paper') return { system: systemPrompt(base, extra) };
  const text = base ?? paperSystemPrompt;
  return { system: systemPrompt(withoutHeader(text), extra), firstMessagePrefix: text };
}
