import type { UpstreamToolName } from '../tools/names.js';
import type { IdeTool } from '../tools/tool.js';
import { upstreamEditFile, upstreamSearchReplace, upstreamWriteFile } from './edit.js';
import {
  upstreamCreateDirectory,
  upstreamDeleteFile,
  upstreamListDir,
  upstreamListFiles,
  upstreamReadFile,
} from './files.js';
import {
  upstreamApiCall,
  upstreamCreateDiagram,
  upstreamDatabaseQuery,
  upstreamEditNotebook,
  upstreamUiTest,
  upstreamWebSearch,
} from './other.js';
import { upstreamCodebaseSearch, upstreamFileSearch, upstreamGrepSearch } from './search.js';
import { upstreamRunTerminalCmd } from './terminal.js';

/** The released harness's tools by name, in the order it offers them (see upstreamToolNames). */
export const upstreamTools: Record<UpstreamToolName, IdeTool> = {
  codebase_search: upstreamCodebaseSearch,
  read_file: upstreamReadFile,
  run_terminal_cmd: upstreamRunTerminalCmd,
  list_dir: upstreamListDir,
  grep_search: upstreamGrepSearch,
  edit_file: upstreamEditFile,
  write_file: upstreamWriteFile,
  search_replace: upstreamSearchReplace,
  file_search: upstreamFileSearch,
  delete_file: upstreamDeleteFile,
  web_search: upstreamWebSearch,
  create_diagram: upstreamCreateDiagram,
  edit_notebook: upstreamEditNotebook,
  api_call: upstreamApiCall,
  database_query: upstreamDatabaseQuery,
  ui_test: upstreamUiTest,
  create_directory: upstreamCreateDirectory,
  list_files: upstreamListFiles,
};
