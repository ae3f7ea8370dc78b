/**
 * Malformed YAML made from well-formed files, deterministically from a seed: the ways real files
 * go wrong (cut short, a value of the wrong type, a broken alias, an absurd number, a stray key,
 * runaway nesting, binary junk, nothing at all).
 */

/** mulberry32: a small seeded generator, so a failing case can be made again from its seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Values of the wrong type, or of the right type and an absurd size. */
const junkValues = [
  '[1, 2, 3]',
  '{ a: 1 }',
  '"text"',
  '-1',
  '0',
  'true',
  'null',
  '~',
  '1e308',
  '-1e308',
  '99999999999999999999999',
  '2147484',
  '1000000000',
  '.nan',
  '.inf',
  '-.inf',
  '0x7fffffff',
  '""',
  "'../../../../etc/passwd'",
  '!!binary aGVsbG8=',
  '!!js/function "x"',
  '&anchor value',
  '*nowhere',
  '<<: *nowhere',
  '{<<: *nowhere}',
  '|',
  '>-',
  '{',
  '[',
  '"unterminated',
  "'also unterminated",
  '@reserved',
  '`backtick',
  '%directive',
  '? complex',
];

interface Mutation {
  name: string;
  apply(text: string, random: Random): string;
}

const lines = (text: string) => text.split('\n');

/** Lines holding a `key: value` (or `- value`), which the value mutations rewrite. */
function valueLines(text: string): number[] {
  return lines(text)
    .map((line, index) =>
      /^\s*(-\s+)?[A-Za-z0-9_.-]+:\s*\S/.test(line) || /^\s*-\s+\S/.test(line) ? index : -1,
    )
    .filter((index) => index >= 0);
}

function replaceValue(text: string, random: Random, value: () => string): string {
  const all = lines(text);
  const candidates = valueLines(text);
  if (candidates.length === 0) return `${text}\nextra: ${value()}\n`;
  const index = pick(random, candidates);
  const line = all[index]!;
  const colon = line.indexOf(': ');
  all[index] = colon >= 0 ? `${line.slice(0, colon)}: ${value()}` : line.replace(/-\s+.*/, `- ${value()}`);
  return all.join('\n');
}

function junkBytes(random: Random, count: number): string {
  return Buffer.from(Array.from({ length: count }, () => Math.floor(random() * 256))).toString('latin1');
}

const mutations: Mutation[] = [
  {
    name: 'truncated',
    apply: (text, random) => text.slice(0, Math.floor(random() * text.length)),
  },
  {
    name: 'wrong type',
    apply: (text, random) => replaceValue(text, random, () => pick(random, junkValues)),
  },
  {
    name: 'two wrong types',
    apply: (text, random) =>
      replaceValue(
        replaceValue(text, random, () => pick(random, junkValues)),
        random,
        () => pick(random, junkValues),
      ),
  },
  {
    name: 'bad alias',
    apply: (text, random) =>
      replaceValue(text, random, () => pick(random, ['*nope', '&self [*self]', '{<<: *missing}', '*'])),
  },
  {
    name: 'alias bomb',
    apply: (text) => {
      const bomb = ['x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
      for (let i = 1; i < 9; i++)
        bomb.push(
          `x${i}: &x${i} [${Array(9)
            .fill(`*x${i - 1}`)
            .join(', ')}]`,
        );
      return `${bomb.join('\n')}\n${text}`;
    },
  },
  {
    name: 'huge number',
    apply: (text, random) =>
      replaceValue(text, random, () =>
        pick(random, [
          '1e400',
          '2147484',
          '1000000000',
          '123456789012345678901234567890',
          '-1e999',
          '4294967296',
        ]),
      ),
  },
  {
    name: 'unknown key',
    apply: (text, random) => {
      const all = lines(text);
      const at = Math.floor(random() * (all.length + 1));
      const indent = ' '.repeat(pick(random, [0, 0, 2, 4]));
      all.splice(
        at,
        0,
        `${indent}${pick(random, ['bogus', 'Name', 'harnes', 'limits', 'id', '"quoted key"'])}: 1`,
      );
      return all.join('\n');
    },
  },
  {
    name: 'deep nesting',
    apply: (text, random) => {
      const depth = pick(random, [65, 300, 3000, 20000]);
      const nested =
        random() < 0.5
          ? `${'['.repeat(depth)}${']'.repeat(depth)}`
          : `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`;
      return replaceValue(text, random, () => nested);
    },
  },
  {
    name: 'deep block nesting',
    apply: (text, random) => {
      const depth = pick(random, [70, 800]);
      const block = Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}k:`).join('\n');
      return `${text}\nnested:\n${block.replace(/^/gm, ' ')} 1\n`;
    },
  },
  {
    name: 'binary junk inserted',
    apply: (text, random) => {
      const at = Math.floor(random() * text.length);
      return `${text.slice(0, at)}${junkBytes(random, 1 + Math.floor(random() * 64))}${text.slice(at)}`;
    },
  },
  { name: 'binary junk only', apply: (_text, random) => junkBytes(random, 1 + Math.floor(random() * 2048)) },
  { name: 'empty', apply: () => '' },
  { name: 'whitespace and comments only', apply: () => '\n   \n# nothing here\n\t\n' },
  {
    name: 'a scalar document',
    apply: (_text, random) => pick(random, ['42', 'just text', '- a\n- b\n', 'null']),
  },
  {
    name: 'duplicate key',
    apply: (text) => {
      const first = lines(text).find((line) => /^[A-Za-z]+:/.test(line));
      return first ? `${text}\n${first}\n` : `a: 1\na: 2\n${text}`;
    },
  },
  { name: 'tabs for indentation', apply: (text) => text.replace(/^ {2}/gm, '\t') },
  { name: 'byte order mark and CRLF', apply: (text) => `\uFEFF${text.replace(/\n/g, '\r\n')}` },
  { name: 'NUL bytes', apply: (text, random) => replaceValue(text, random, () => '"\0\0"\0') },
  { name: 'several documents', apply: (text) => `${text}\n---\n${text}` },
  {
    name: 'long line',
    apply: (text, random) => replaceValue(text, random, () => `"${'x'.repeat(200_000)}"`),
  },
];

/** One mutation, chosen by `random`, and its name. */
export function mutate(text: string, random: Random): { name: string; text: string } {
  const mutation = pick(random, mutations);
  return { name: mutation.name, text: mutation.apply(text, random) };
}
