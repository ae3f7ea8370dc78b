import { hasErrorClass } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { baseFor } from '../src/images.js';
import { baseImageRef, baseRecipe, recipeOf, trixieRecipe } from '../src/index.js';

describe('base image variants', () => {
  it('gives a task the Debian 12 image unless it needs a newer Python than 3.11, then Debian 13', () => {
    expect(baseFor('t', {})).toBe(baseRecipe);
    expect(baseFor('t', { requires: { python: '3.11' } })).toBe(baseRecipe);
    expect(baseFor('t', { requires: { python: '3.12' } })).toBe(trixieRecipe);
    expect(baseFor('t', { requires: { python: '3.13' } })).toBe(trixieRecipe);
    expect(baseImageRef(trixieRecipe)).not.toBe(baseImageRef());
  });

  it('refuses a task that needs a Python no base image has, naming what there is', () => {
    let error: unknown;
    try {
      baseFor('future', { requires: { python: '3.14' } });
    } catch (caught) {
      error = caught;
    }
    expect(hasErrorClass(error, 'sandbox')).toBe(true);
    expect(String(error)).toContain(
      'task future needs python3 >= 3.14, newer than any base image has (bookworm: 3.11, trixie: 3.13)',
    );
  });

  it('knows only the Debian releases it has recipes for', () => {
    expect(recipeOf('trixie').suite).toBe('trixie');
    expect(() => recipeOf('sid' as never)).toThrow(
      'no base image for Debian sid (there are: bookworm, trixie)',
    );
  });
});
