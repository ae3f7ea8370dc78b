import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { ClassifiedError } from '@longhaul/core';
import { z } from 'zod';
import type { IdeOptions } from '../options.js';
import { limits } from './limits.js';
import { toolNames } from './names.js';
import { defineTool, type IdeTool } from './tool.js';

export interface McpTools {
  tools: IdeTool[];
  close(): Promise<void>;
}

interface TextPart {
  type: string;
  text?: string;
}

/** An MCP tool's name as the model sees it: `<server>__<tool>`, within the providers' 64 characters. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

function inputOf(schema: unknown): z.ZodObject {
  try {
    const parsed = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    if (parsed instanceof z.ZodObject) return parsed;
  } catch {}
  return z.looseObject({});
}

/**
 * Connects to the experiment's MCP servers and offers their tools. Servers run where their
 * configuration says (a URL, or a command started on the host by the runner), not in the
 * sandbox: they are for what the workspace does not hold (documentation, issue trackers...).
 */
export async function connectMcp(servers: IdeOptions['mcpServers']): Promise<McpTools> {
  const clients: MCPClient[] = [];
  const tools: IdeTool[] = [];
  const close = async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
  };
  try {
    for (const [server, config] of Object.entries(servers)) {
      const transport =
        'url' in config
          ? { type: config.type, url: config.url, ...(config.headers ? { headers: config.headers } : {}) }
          : new Experimental_StdioMCPTransport({
              command: config.command,
              args: config.args,
              env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...config.env },
              stderr: 'ignore',
            });
      const client = await createMCPClient({ transport, clientName: 'longhaul-ide' }).catch(
        (error: Error) => {
          throw new ClassifiedError(
            'harness',
            `harness 'ide': MCP server ${server} did not start: ${error.message}`,
          );
        },
      );
      clients.push(client);
      const definitions = await client.listTools();
      const executable = client.toolsFromDefinitions(definitions);
      for (const definition of definitions.tools) {
        const name = mcpToolName(server, definition.name);
        if ((toolNames as readonly string[]).includes(name) || tools.some((tool) => tool.name === name))
          throw new ClassifiedError('harness', `harness 'ide': MCP tool ${name} clashes with another tool`);
        const execute = executable[definition.name]?.execute;
        tools.push(
          defineTool({
            name,
            description: `[MCP ${server}] ${definition.description ?? definition.name}`,
            input: inputOf(definition.inputSchema),
            async run(input, ctx) {
              const { explanation: _, ...args } = input as Record<string, unknown>;
              if (!execute) return { success: false, error: `MCP tool ${definition.name} cannot be called` };
              const result = (await execute(args, {
                toolCallId: name,
                messages: [],
                abortSignal: ctx.signal,
              })) as {
                content?: TextPart[];
                isError?: boolean;
                structuredContent?: unknown;
              };
              const text = (result.content ?? [])
                .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
                .join('\n')
                .slice(0, limits.responseBytes);
              return {
                success: result.isError !== true,
                content: text,
                ...(result.structuredContent === undefined ? {} : { structured: result.structuredContent }),
                ...(result.isError ? { error: text || 'the MCP tool reported an error' } : {}),
              };
            },
          }),
        );
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { tools, close };
}
