// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are variable references, not misquoted templates
import { closest, editDistance } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { interpolateEnv } from '../../src/config/interpolate.js';
import { applyOverrides, parseOverrides } from '../../src/config/overrides.js';
import { schemaIssues } from '../../src/config/schema-issues.js';
import { matchesTaskPattern } from '../../src/config/task-filter.js';

describe('suggestions', () => {
  it('measures edit distance', () => {
    expect(editDistance('harnes', 'harness')).toBe(1);
    expect(editDistance('agnet', 'agent')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
  });
  it('suggests only plausible misspellings, preferring a case-only difference', () => {
    expect(closest('concurency', ['concurrency', 'repeats'])).toBe('concurrency');
    expect(closest('Oracle', ['oracle', 'orade'])).toBe('oracle');
    expect(closest('docker', ['local'])).toBeUndefined();
    expect(closest('x', [])).toBeUndefined();
  });
});

describe('schemaIssues', () => {
  const schema = z.object({
    model: z.string(),
    tools: z.array(z.object({ name: z.string() })).default([]),
    extra: z.looseObject({ a: z.number().optional() }).optional(),
  });
  it('reports unknown keys of objects that would strip them, with the known keys', () => {
    const { issues } = schemaIssues(schema, { model: 'm', modle: 'x', tools: [{ name: 'a', nmae: 'b' }] });
    expect(issues).toEqual([
      { path: ['modle'], message: "unknown key 'modle'", known: ['model', 'tools', 'extra'] },
      { path: ['tools', 0, 'nmae'], message: "unknown key 'nmae'", known: ['name'] },
    ]);
  });
  it('accepts extra keys where the schema explicitly allows them', () => {
    expect(schemaIssues(schema, { model: 'm', extra: { b: 1 } })).toEqual({
      issues: [],
      data: { model: 'm', tools: [], extra: { b: 1 } },
    });
  });
  it('says which key is missing and what a wrong value is', () => {
    expect(schemaIssues(schema, { tools: 'all' }).issues).toEqual([
      { path: ['model'], message: "missing required key 'model' (string)" },
      { path: ['tools'], message: "expected array, got string 'all'" },
    ]);
  });
  it('reports the problems of the union branch the value was meant for', () => {
    const ref = z.union([
      z.string(),
      z.strictObject({ id: z.string(), options: z.record(z.string(), z.unknown()) }),
    ]);
    expect(schemaIssues(ref, { id: 3, options: {} }).issues).toEqual([
      { path: ['id'], message: 'expected string, got number 3' },
    ]);
    expect(schemaIssues(ref, { id: 'a', option: {} }).issues).toEqual([
      { path: ['option'], message: "unknown key 'option'", known: ['id', 'options'] },
      { path: ['options'], message: "missing required key 'options' (record)" },
    ]);
    expect(schemaIssues(z.union([z.string(), z.number()], { error: 'id or number' }), true).issues).toEqual([
      { path: [], message: 'id or number' },
    ]);
  });
});

describe('interpolateEnv', () => {
  it('substitutes variables and defaults, keeps $$ as $, and skips the given top-level keys', () => {
    const value = {
      a: 'x-${A}-${B:-b}-${EMPTY:-e}-$$HOME',
      list: ['${A}'],
      models: { key: '${SECRET}' },
    };
    expect(interpolateEnv(value, { A: '1', EMPTY: '' }, ['models'])).toEqual([]);
    expect(value).toEqual({ a: 'x-1-b-e-$HOME', list: ['1'], models: { key: '${SECRET}' } });
  });
  it('reports missing and malformed references with their paths', () => {
    const issues = interpolateEnv({ a: [{ b: '${MISSING}' }], c: '${not valid}', d: 'ok ${UNCLOSED' }, {});
    expect(issues.map((issue) => [issue.path, issue.message.split(' (')[0]])).toEqual([
      [['a', 0, 'b'], 'environment variable MISSING is not set'],
      [['c'], "malformed variable reference '${not valid}'"],
      [['d'], "malformed variable reference '${UNCLOSED'"],
    ]);
  });
});

describe('--set overrides', () => {
  it('parses key paths with indexes and YAML values', () => {
    const { overrides, issues } = parseOverrides([
      'harness[1].options.model=opus',
      'repeats=3',
      'tasks=[a, b]',
      'x.y=a=b',
    ]);
    expect(issues).toEqual([]);
    expect(overrides.map((o) => [o.path, o.value, o.valueColumn])).toEqual([
      [['harness', 1, 'options', 'model'], 'opus', 26],
      [['repeats'], 3, 9],
      [['tasks'], ['a', 'b'], 7],
      [['x', 'y'], 'a=b', 5],
    ]);
  });
  it('creates missing parents and turns a bare plugin id into a ref', () => {
    const root: Record<string, unknown> = { harness: ['oracle', 'agent'], script: 'checkpoints' };
    const { overrides } = parseOverrides([
      'harness[1].options.model=m',
      'script.label=cp',
      'limits.turnSeconds=5',
    ]);
    const isRef = (path: readonly (string | number)[]) => path[0] === 'harness' || path[0] === 'script';
    expect(applyOverrides(root, overrides, isRef)).toEqual([]);
    expect(root).toEqual({
      harness: ['oracle', { id: 'agent', options: { model: 'm' } }],
      script: { id: 'checkpoints', label: 'cp' },
      limits: { turnSeconds: 5 },
    });
  });
});

describe('task filter', () => {
  it('matches exact ids and globs', () => {
    expect(matchesTaskPattern('wordfreq', 'wordfreq')).toBe(true);
    expect(matchesTaskPattern('wordfreq', 'word*')).toBe(true);
    expect(matchesTaskPattern('wordfreq', 'w?rdfreq')).toBe(true);
    expect(matchesTaskPattern('wordfreq', 'word')).toBe(false);
    expect(matchesTaskPattern('a.b', 'a?b')).toBe(true);
    expect(matchesTaskPattern('axb', 'a.b')).toBe(false);
  });
});
