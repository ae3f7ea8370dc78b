/**
 * How much a tool may read or hold in the runner's process. The loop runs beside every other
 * trial of the run, so no call may take memory or time in proportion to what the agent made: a
 * file larger than these is refused with a hint, a search reads source files up to a budget.
 */
export const limits = {
  /** Files read_file reads (it shows a window of lines from them). */
  readBytes: 32 * 1024 * 1024,
  /** Files the edit tools (edit_file, search_replace, edit_notebook) rewrite, and write_file compares. */
  editBytes: 4 * 1024 * 1024,
  /** Files a search reads; larger ones (logs, data, bundles) are left out. */
  searchFileBytes: 1024 * 1024,
  /** All files one search reads together; past it the rest are left out, and the result says how many. */
  searchBytes: 64 * 1024 * 1024,
  /** Characters of a matched or context line a search returns. */
  lineChars: 500,
  /** Bytes of an HTTP body, of WebSocket traffic, or of mongosh output a tool takes. */
  responseBytes: 1024 * 1024,
  /** Heap of the worker thread a search runs in. */
  searchHeapMb: 512,
} as const;
