import { ClassifiedError, classify } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

describe('classify', () => {
  it('maps a classified error to error:<class>', () => {
    expect(classify(new ClassifiedError('crash', 'agent died'))).toBe('error:crash');
  });
  it('maps an unknown throw to error:internal', () => {
    expect(classify(new Error('boom'))).toBe('error:internal');
  });
  it('prefers the abort reason the kernel set', () => {
    const controller = new AbortController();
    controller.abort('timeout');
    expect(classify(new Error('aborted'), controller.signal)).toBe('timeout');
  });
});
