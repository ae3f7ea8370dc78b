import type { Task } from '@longhaul/core';
import { generateText, type LanguageModel, Output } from 'ai';
import { z } from 'zod';

export interface ComponentExposure {
  component: string;
  /** The highest explicitness any request reaches (0–4). */
  level: number;
  /** The request that discloses it most explicitly (the first one at that level). */
  request: string | null;
  /** 1-based turns at which it first becomes recoverable (≥ 1) and explicit (= 4). */
  firstRecoverable: number | null;
  firstExplicit: number | null;
}

export interface ExposureAudit {
  task: string;
  components: ComponentExposure[];
  /** Recoverable component rate: share with level ≥ 1. */
  rcr: number;
  /** Explicitly specified rate: share with level 4. */
  esr: number;
  recoverable: number;
  /** Per turn (request), the cumulative shares of components recoverable and explicit so far. */
  curve: { turn: number; request: string; recoverable: number; explicit: number }[];
}

/**
 * SLUMP's exposure audit of a script: for each component the request that discloses it and how
 * explicitly, the recoverable and explicit rates, and the per-turn exposure curve (Figure 1).
 */
export function exposureAudit(task: Task): ExposureAudit {
  const components = task.components ?? [];
  const exposures: ComponentExposure[] = components.map((component) => {
    let best: { level: number; request: string | null } = { level: 0, request: null };
    let firstRecoverable: number | null = null;
    let firstExplicit: number | null = null;
    task.steps.forEach((step, index) => {
      const level = step.discloses?.find((d) => d.component === component.id)?.explicitness ?? 0;
      if (level > best.level) best = { level, request: step.id };
      if (level >= 1 && firstRecoverable === null) firstRecoverable = index + 1;
      if (level === 4 && firstExplicit === null) firstExplicit = index + 1;
    });
    return { component: component.id, ...best, firstRecoverable, firstExplicit };
  });
  const n = components.length || 1;
  const curve = task.steps.map((step, index) => ({
    turn: index + 1,
    request: step.id,
    recoverable:
      exposures.filter((e) => e.firstRecoverable !== null && e.firstRecoverable <= index + 1).length / n,
    explicit: exposures.filter((e) => e.firstExplicit !== null && e.firstExplicit <= index + 1).length / n,
  }));
  const recoverable = exposures.filter((e) => e.level >= 1).length;
  return {
    task: task.id,
    components: exposures,
    rcr: recoverable / n,
    esr: exposures.filter((e) => e.level === 4).length / n,
    recoverable,
    curve,
  };
}

const disclosureSchema = z.object({
  discloses: z
    .array(
      z.object({
        component: z.string(),
        explicitness: z.number().int().min(0).max(4),
      }),
    )
    .describe(
      'Components this request discloses, with how explicitly; leave out those it says nothing about',
    ),
});

export const exposureSystemPrompt = `You audit a scripted conversation in which a user discloses the design of a program request by request. For one request, say which of the listed components it discloses and how explicitly a competent developer could recover the component from this request and the earlier ones alone:
0 not recoverable, 1 weakly recoverable, 2 recoverable with residual ambiguity, 3 clearly recoverable, 4 explicitly specified.`;

/**
 * The LLM-assisted audit: re-derives every request's disclosures from the request texts (each
 * request judged with the earlier ones as context), for comparison with the authored levels.
 */
export async function llmExposureLevels(
  model: LanguageModel,
  task: Task,
  signal?: AbortSignal,
): Promise<Task> {
  const components = (task.components ?? []).map((c) => `- ${c.id}: ${c.description}`).join('\n');
  const ids = new Set((task.components ?? []).map((c) => c.id));
  const steps = [];
  for (const [index, step] of task.steps.entries()) {
    const earlier = task.steps
      .slice(0, index)
      .map((s, i) => `${i + 1}. ${s.prompt.replace(/\s+/g, ' ')}`)
      .join('\n');
    const { output } = await generateText({
      model,
      system: exposureSystemPrompt,
      prompt: `Components:\n${components}\n\nEarlier requests:\n${earlier || '(none)'}\n\nRequest ${index + 1}:\n${step.prompt}`,
      output: Output.object({ schema: disclosureSchema }),
      temperature: 0,
      abortSignal: signal,
    });
    steps.push({ ...step, discloses: output.discloses.filter((d) => ids.has(d.component)) });
  }
  return { ...task, steps };
}
