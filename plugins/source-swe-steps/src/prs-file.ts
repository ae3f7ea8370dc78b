import { readYaml } from '@longhaul/core';
import { z } from 'zod';
import { locatedError } from './located.js';

/** PR text a user exported from their forge, by PR number. */
export interface PrText {
  title?: string;
  body?: string;
  issues: { number: number; title: string; body: string }[];
}

const linked = z.object({
  number: z.number().int().positive(),
  title: z.string().default(''),
  body: z.string().nullable().default(''),
});

const entry = z.object({
  number: z.number().int().positive(),
  title: z.string().optional(),
  body: z.string().nullable().optional(),
  closingIssuesReferences: z.array(linked).optional(),
  issues: z.array(linked).optional(),
});

/**
 * Reads `--prs FILE`: a JSON list shaped like a forge export (`gh pr list --json
 * number,title,body,closingIssuesReferences` gives it): number, title, body, and the linked
 * issues under `closingIssuesReferences` or `issues`, each with number, title and body. Other
 * keys are ignored. Errors name the file (as `name`), line, column and key.
 */
export async function readPrsFile(file: string, name = file): Promise<Map<number, PrText>> {
  const yaml = await readYaml(file, name);
  const parsed = z.array(entry).safeParse(yaml.value);
  if (!parsed.success) throw locatedError(yaml, parsed.error);
  const texts = new Map<number, PrText>();
  for (const pr of parsed.data) {
    const issues = [...(pr.closingIssuesReferences ?? []), ...(pr.issues ?? [])];
    texts.set(pr.number, {
      title: pr.title,
      body: pr.body ?? undefined,
      issues: issues.map((issue) => ({ number: issue.number, title: issue.title, body: issue.body ?? '' })),
    });
  }
  return texts;
}
