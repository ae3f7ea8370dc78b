import type { Scorer } from '@longhaul/core';
import { instantiatePlugin } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import plugins from '../src/index.js';

describe('the package', () => {
  it('exports every scorer its package.json declares, each with its scope', () => {
    expect(plugins.map((p) => p.id)).toEqual(manifest.longhaul.plugins.map((p) => p.id));
    const scopes = plugins.map((plugin) => instantiatePlugin<Scorer>(plugin, {}).scope);
    expect(scopes).toEqual(['step', 'trial', 'experiment', 'step', 'trial']);
  });

  it('refuses unknown options with the option named', () => {
    expect(() => plugins[0]!.options.parse({ cascde: 'always' })).toThrow(/cascde/);
  });
});
