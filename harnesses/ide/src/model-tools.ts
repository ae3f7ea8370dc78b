import type { ModelTools, PluginUse } from '@longhaul/core';
import { isDirect, parseModel } from './model.js';
import type { IdeOptions } from './options.js';
import { checkToolInput, offeredTools, taskTags } from './tools/registry.js';

/**
 * The gateway model the loop calls and the tools it offers it, for `longhaul validate` to check a
 * scripted model's calls: the tools offered on any of the experiment's tasks (full-stack ones when
 * a task is tagged so), each call's arguments checked as `runTool` checks them. Extra and MCP
 * tools are only known at run time: with any, other names are let through.
 */
export function ideModelTools(options: IdeOptions, use: PluginUse): ModelTools | undefined {
  if (isDirect(options)) return undefined;
  const tags = use.tasks.flatMap((task) => taskTags(task.metadata));
  const model = parseModel(options.model).id;
  return {
    ...(model === undefined ? {} : { model }),
    tools: offeredTools(options, tags).map((tool) => ({
      name: tool.name,
      check: (input: unknown) => checkToolInput(tool, options, input),
    })),
    open: options.extraTools.length > 0 || Object.keys(options.mcpServers).length > 0,
  };
}
