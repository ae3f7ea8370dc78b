import { z } from 'zod';
import { defineTool, fail } from './tool.js';

/** Tools the paper lists but did not make available in its evaluation: offered only on request. */
function unavailable(name: string, description: string, input: z.ZodObject) {
  return defineTool({
    name,
    description,
    input,
    async run() {
      return fail(`NotImplemented: ${name} is not available in this environment`);
    },
  });
}

export const webSearch = unavailable(
  'web_search',
  'Search the web (not available: tasks are solvable from the repository alone).',
  z.object({ search_term: z.string().describe('What to search for') }),
);

export const createDiagram = unavailable(
  'create_diagram',
  'Create a Mermaid diagram (not available in this environment).',
  z.object({ content: z.string().describe('Mermaid definition') }),
);

export const uiTest = unavailable(
  'ui_test',
  'Browser automation of a frontend (not available in this environment).',
  z.object({
    action: z
      .enum(['screenshot', 'click', 'type', 'navigate', 'wait_for_element', 'get_text'])
      .describe('What to do in the browser'),
    selector: z.string().optional().describe('CSS selector of the element'),
    text: z.string().optional().describe('Text to type'),
    url: z.string().optional().describe('Page to open'),
  }),
);
