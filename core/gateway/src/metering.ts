import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { addUsage, ConfigError, emptyUsage, parseYaml, type Usage } from '@longhaul/core';
import { type Price, pricesConfigSchema } from './config.js';
import type { ModelReply, ModelRequest, TokenCounts } from './model.js';

const defaultPricesFile = fileURLToPath(new URL('../prices.yaml', import.meta.url));

/** The built-in price table shipped with the package (prices.yaml). */
export async function defaultPrices(): Promise<Record<string, Price>> {
  const yaml = parseYaml(await readFile(defaultPricesFile, 'utf8'), defaultPricesFile);
  const parsed = pricesConfigSchema.safeParse(yaml.value);
  if (!parsed.success)
    throw new ConfigError(
      parsed.error.issues.map((issue) => yaml.issue(issue.path as string[], issue.message)),
    );
  return parsed.data;
}

/** The price of a model: exact key first, then the longest key a dated model id starts with. */
export function findPrice(prices: Record<string, Price>, names: string[]): Price | undefined {
  for (const name of names) if (prices[name]) return prices[name];
  for (const name of names) {
    const key = Object.keys(prices)
      .filter((candidate) => name.startsWith(`${candidate}-`))
      .sort((a, b) => b.length - a.length)[0];
    if (key) return prices[key];
  }
  return undefined;
}

export function costUsd(counts: TokenCounts, price: Price | undefined): number {
  if (!price) return 0;
  return (
    (counts.inputTokens * price.input +
      counts.outputTokens * price.output +
      counts.cacheReadTokens * (price.cacheRead ?? price.input) +
      counts.cacheWriteTokens * (price.cacheWrite ?? price.input)) /
    1_000_000
  );
}

/**
 * Token estimate for backends that have no tokenizer (scripted, oracle): one token per four
 * characters of the text the model would read or write, rounded up. Close enough for budgets and
 * for spotting runaway conversations; never used when a provider reports real counts.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function requestText(request: ModelRequest): string {
  const parts = [request.system, ...request.tools.map((tool) => JSON.stringify(tool))];
  for (const message of request.messages)
    for (const part of message.content)
      parts.push(
        part.type === 'text'
          ? part.text
          : part.type === 'tool_result'
            ? part.content
            : JSON.stringify(part.input),
      );
  return parts.filter(Boolean).join('\n');
}

export function estimateUsage(request: ModelRequest, content: ModelReply['content']): TokenCounts {
  const output = content.map((part) =>
    part.type === 'text' ? part.text : `${part.name}${JSON.stringify(part.input)}`,
  );
  return {
    inputTokens: estimateTokens(requestText(request)),
    outputTokens: estimateTokens(output.join('\n')),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}

/** Usage per trial, accumulated between `take` calls. */
export class Meter {
  private readonly pending = new Map<string, Usage>();

  constructor(private readonly prices: Record<string, Price>) {}

  add(trialId: string, counts: TokenCounts, modelNames: string[]): Usage {
    const usage = { ...counts, costUsd: costUsd(counts, findPrice(this.prices, modelNames)) };
    this.pending.set(trialId, addUsage(this.pending.get(trialId) ?? emptyUsage(), usage));
    return usage;
  }

  hasPrice(modelNames: string[]): boolean {
    return findPrice(this.prices, modelNames) !== undefined;
  }

  take(trialId: string): Usage {
    const usage = this.pending.get(trialId) ?? emptyUsage();
    this.pending.delete(trialId);
    return usage;
  }
}
