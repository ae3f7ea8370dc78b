import { definePlugin, tokens } from '@longhaul/core';
import { IdeHarness } from './harness.js';
import { ideModelTools } from './model-tools.js';
import { ideOptions } from './options.js';

export { IdeHarness } from './harness.js';
export { isDirect, parseModel, type ResolvedModel, resolveModel } from './model.js';
export {
  defaultProtected,
  type IdeOptions,
  type IdeSettings,
  ideOptions,
  type Profile,
  paperProtected,
  profiles,
  settle,
} from './options.js';
export { paperSystemPrompt, sessionPrompts, systemPrompt, withoutHeader } from './prompt.js';
export { isTransient, modelFault, withRetries } from './retry.js';
export { capOutput, IdeSession, type IdeState, isIdeState } from './session.js';
export { argumentTable, replaceArgumentTable } from './tools/argument-table.js';
export { applyLineEdits } from './tools/edit.js';
export { loadExtraTools } from './tools/extra.js';
export { connectMcp, type McpTools, mcpToolName } from './tools/mcp.js';
export {
  fullStackTools,
  type PaperToolName,
  type ToolName,
  toolNames,
  type UpstreamToolName,
  unavailableTools,
  upstreamToolNames,
} from './tools/names.js';
export { PathPolicy, shellWords } from './tools/policy.js';
export {
  aiTools,
  allTools,
  checkToolInput,
  madeChange,
  offeredTools,
  resultText,
  runTool,
  taskTags,
} from './tools/registry.js';
export { SyntaxChecker } from './tools/syntax.js';
export { defineTool, type IdeTool, type ToolContext, type ToolResult } from './tools/tool.js';
export { estimateTokens, truncateHistory } from './truncate.js';
export { pythonJson } from './upstream/json.js';
export { applyUpstreamLineEdits, splitLinesKeepEnds } from './upstream/line-edits.js';
export { upstreamTools } from './upstream/tools.js';

export default definePlugin({
  kind: 'harness',
  id: 'ide',
  description:
    "IDE-Bench's IDE-style tool loop (read_file, edit_file, search, terminal, full-stack tools) over any model, through the gateway or a provider",
  options: ideOptions,
  modelTools: ideModelTools,
  register(bind, options) {
    bind(tokens.Harness).toDynamicValue(
      (ctx) => new IdeHarness(options, ctx.get(tokens.Gateway, { optional: true })),
    );
  },
});
