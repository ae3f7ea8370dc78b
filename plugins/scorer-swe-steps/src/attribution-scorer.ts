import { createOpenAI } from '@ai-sdk/openai';
import {
  ClassifiedError,
  type ModelGateway,
  RunStore,
  type Score,
  type Scorer,
  type TrialScoreContext,
} from '@longhaul/core';
import type { LanguageModel } from 'ai';
import { failureCategories, labelFailure, slugOf, traceText } from './attribution.js';
import type { AttributionOptions } from './options.js';

/** The failing ids of a swe-steps detail (`{f2p: {id: outcome}, p2p: …, cascaded: {id: {outcome}}}`). */
function failingIds(detail: unknown): string[] {
  const d = (detail ?? {}) as Record<string, Record<string, unknown>>;
  const outcome = (value: unknown) =>
    typeof value === 'string' ? value : ((value as { outcome?: string } | null)?.outcome ?? 'missing');
  return ['f2p', 'p2p', 'cascaded'].flatMap((group) =>
    Object.entries(d[group] ?? {})
      .filter(([, value]) => !['passed', 'xfailed'].includes(outcome(value)))
      .map(([id, value]) => `${id} (${group}, ${outcome(value)})`),
  );
}

/**
 * Trial scorer `swe-steps-attribution`: an LLM judge (a model of the run's gateway) labels each
 * failed PR with SWE-agent's failure categories plus "Solving Previous Issues" (the paper's RQ4),
 * from the request, the earlier requests, the failing tests and the end of the PR's trace.
 */
export class SweStepsAttributionScorer implements Extract<Scorer, { scope: 'trial' }> {
  readonly scope = 'trial';
  readonly version = '1';

  constructor(
    private readonly options: AttributionOptions,
    private readonly gateway: () => ModelGateway | undefined,
  ) {}

  private async model(trialId: string): Promise<LanguageModel> {
    const gateway = this.gateway();
    if (!gateway) {
      throw new ClassifiedError(
        'config',
        `swe-steps-attribution: no model gateway runs; add the model '${this.options.model}' under the experiment's models:`,
      );
    }
    const endpoint = await gateway.endpoint(trialId, '127.0.0.1', this.options.model);
    return createOpenAI({ baseURL: `${endpoint.hostBaseUrl}/v1`, apiKey: endpoint.token }).chat(
      this.options.model,
    );
  }

  async score(ctx: TrialScoreContext): Promise<Score[]> {
    const key = `${this.options.scorer}.success`;
    const { task } = ctx.trial;
    const failed = ctx.record.steps.filter((step) => step.scores[key] === 0);
    const counts = new Map<string, number>(failureCategories.map((category) => [category, 0]));
    const labels: { step: string; category: string; explanation: string }[] = [];
    if (failed.length > 0) {
      const model = await this.model(ctx.trial.id);
      const store = new RunStore(ctx.trial.runDir);
      for (const record of failed) {
        const step = task.steps[record.index]!;
        const scores = await store.readStepScores(ctx.trial.id, step);
        const detail = (scores?.details?.[this.options.scorer] as Record<string, unknown> | undefined)
          ?.success;
        const label = await labelFailure(model, {
          pr: step.id,
          request: step.prompt,
          earlier: task.steps.slice(0, record.index).map((s) => s.prompt),
          failing: failingIds(detail),
          trace: traceText(await store.readTrajectory(ctx.trial.id, step), this.options.traceChars),
        });
        counts.set(label.category, (counts.get(label.category) ?? 0) + 1);
        labels.push({ step: step.id, ...label });
      }
    }
    return [
      { metric: 'failed_prs', value: failed.length, detail: labels },
      ...[...counts].map(([category, count]) => ({ metric: slugOf(category), value: count })),
    ];
  }
}
