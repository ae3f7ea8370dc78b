import { sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { exposureAudit, llmExposureLevels } from '../src/exposure.js';
import { gatewayModel } from '../src/gateway-model.js';
import { judgeGateway } from './fixtures.js';

describe('exposure audit', () => {
  it('finds for each component its most explicit request, first recoverable and explicit turns, RCR, ESR and the curve', () => {
    const base = sampleTask(3);
    const task = {
      ...base,
      components: [
        { id: 'a', description: 'A' },
        { id: 'b', description: 'B' },
        { id: 'c', description: 'C' },
      ],
      steps: [
        { ...base.steps[0]!, discloses: [{ component: 'a', explicitness: 2 }] },
        {
          ...base.steps[1]!,
          discloses: [
            { component: 'a', explicitness: 4 },
            { component: 'b', explicitness: 1 },
          ],
        },
        { ...base.steps[2]!, discloses: [{ component: 'b', explicitness: 3 }] },
      ],
    };
    const audit = exposureAudit(task);
    expect(audit.components).toEqual([
      { component: 'a', level: 4, request: base.steps[1]!.id, firstRecoverable: 1, firstExplicit: 2 },
      { component: 'b', level: 3, request: base.steps[2]!.id, firstRecoverable: 2, firstExplicit: null },
      { component: 'c', level: 0, request: null, firstRecoverable: null, firstExplicit: null },
    ]);
    expect(audit.rcr).toBeCloseTo(2 / 3);
    expect(audit.esr).toBeCloseTo(1 / 3);
    expect(audit.curve.map((point) => [point.turn, point.recoverable, point.explicit])).toEqual([
      [1, 1 / 3, 0],
      [2, 2 / 3, 1 / 3],
      [3, 2 / 3, 1 / 3],
    ]);
  });
});

describe('LLM-assisted exposure audit', () => {
  it('re-derives every request’s disclosures through a gateway model, dropping unknown components', async () => {
    const reply = (discloses: unknown[]) => ({ text: JSON.stringify({ discloses }) });
    const { gateway, dispose } = await judgeGateway([
      {
        when: 'Request 1:',
        ...reply([
          { component: 'a', explicitness: 3 },
          { component: 'zz', explicitness: 4 },
        ]),
      },
      { when: 'Request 2:', ...reply([{ component: 'b', explicitness: 4 }]) },
    ]);
    try {
      const base = sampleTask(2);
      const task = {
        ...base,
        components: [
          { id: 'a', description: 'A' },
          { id: 'b', description: 'B' },
        ],
      };
      const derived = await llmExposureLevels(await gatewayModel(gateway, 't', 'judge', 'audit'), task);
      expect(derived.steps.map((step) => step.discloses)).toEqual([
        [{ component: 'a', explicitness: 3 }],
        [{ component: 'b', explicitness: 4 }],
      ]);
      expect(exposureAudit(derived)).toMatchObject({ rcr: 1, esr: 0.5 });
    } finally {
      await dispose();
    }
  });
});
