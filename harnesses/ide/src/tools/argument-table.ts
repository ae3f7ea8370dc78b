import { z } from 'zod';
import type { IdeTool } from './tool.js';

/** A JSON Schema node as `z.toJSONSchema` writes the tools' inputs. */
interface Node {
  type?: string;
  enum?: unknown[];
  items?: Node;
  properties?: Record<string, Node>;
  additionalProperties?: Node;
  required?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  minItems?: number;
}

type Row = [tool: string, argument: string, type: string, given: string, meaning: string];

const code = (value: unknown) =>
  `\`${typeof value === 'string' && value !== '' ? value : JSON.stringify(value)}\``;

function typeOf(node: Node): string {
  if (node.enum) return node.enum.map(code).join(' \\| ');
  const bounds: string[] = [];
  const integer = node.type === 'integer';
  if (node.exclusiveMinimum !== undefined)
    bounds.push(integer ? `≥ ${node.exclusiveMinimum + 1}` : `> ${node.exclusiveMinimum}`);
  if (node.minimum !== undefined) bounds.push(`≥ ${node.minimum}`);
  if (node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER) bounds.push(`≤ ${node.maximum}`);
  const bounded = (name: string) => (bounds.length > 0 ? `${name} ${bounds.join(', ')}` : name);
  switch (node.type) {
    case 'string':
      return node.minLength ? 'non-empty string' : 'string';
    case 'integer':
    case 'number':
      return bounded(node.type);
    case 'boolean':
      return 'boolean';
    case 'array': {
      const items = node.items ? typeOf(node.items) : 'any JSON';
      const plural = items.endsWith('s') || items.includes('`') ? items : `${items}s`;
      return `${node.minItems ? 'non-empty ' : ''}list of ${node.items?.properties ? 'objects' : plural}`;
    }
    case 'object':
      if (node.properties) return 'object';
      return node.additionalProperties?.type ? `mapping to ${node.additionalProperties.type}s` : 'mapping';
    default:
      return 'any JSON';
  }
}

function rows(tool: string, node: Node, prefix: string): Row[] {
  const required = new Set(node.required ?? []);
  return Object.entries(node.properties ?? {}).flatMap(([name, child]) => {
    const argument = `${prefix}${name}`;
    const given = required.has(name) ? 'required' : 'default' in child ? code(child.default) : 'optional';
    const row: Row = [tool, code(argument), typeOf(child), given, child.description ?? ''];
    const nested = child.properties ? child : child.items?.properties ? child.items : undefined;
    const below = nested ? rows(tool, nested, child.items ? `${argument}[].` : `${argument}.`) : [];
    return [row, ...below];
  });
}

/**
 * The arguments of `tools` as one markdown table, generated from their schemas (the schema a tool
 * declares, else its input's, where the `explanation` every call carries is left to the text
 * around it): the README's tables, which a test compares with this.
 */
export function argumentTable(tools: readonly IdeTool[]): string {
  const body = tools.flatMap((tool) =>
    rows(tool.name, (tool.advertised ?? z.toJSONSchema(tool.input, { io: 'input' })) as Node, '').map(
      (row, i): Row => [i === 0 ? code(tool.name) : '', ...row.slice(1)] as Row,
    ),
  );
  const header: Row = ['tool', 'argument', 'type', 'required or default', ''];
  // Descriptions are plain text: a `*` of a glob in one must not read as emphasis.
  const cells = [header, ...body].map((row) =>
    row.map((cell, i) => (i === 4 ? cell.replace(/\*/g, '\\*') : cell).replace(/\n/g, ' ')),
  );
  const widths = header.map((_, i) => Math.max(3, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(cells[0]!), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}

/** The markers around a generated table: `tool arguments` (profile paper) or `upstream tool arguments`. */
function markers(section: string): { start: string; end: string } {
  return {
    start: `<!-- ${section}: written by \`npm run docs\` from the schemas; test/readme.test.ts checks it -->`,
    end: `<!-- end of ${section} -->`,
  };
}

/** `readme` with the table between a section's markers replaced by `table`; the markers must be there. */
export function replaceArgumentTable(readme: string, table: string, section = 'tool arguments'): string {
  const { start, end } = markers(section);
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`the README has no "${start}" ... "${end}" section`);
  return `${readme.slice(0, from + start.length)}\n\n${table}\n\n${readme.slice(to)}`;
}
