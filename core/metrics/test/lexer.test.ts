import { parse } from '@ast-grep/napi';
import { describe, expect, it } from 'vitest';
import { registerGrammars } from '../src/index.js';
import { lex } from '../src/lexer.js';

/** Comments and outermost strings (and, in TypeScript, regexes) as the tree has them, each as `kind:text`. */
function fromTree(text: string, lang: 'python' | 'typescript' = 'python'): string[] {
  registerGrammars();
  const root = parse(lang, text).root();
  expect(root.find({ rule: { kind: 'ERROR' } })).toBeNull();
  const kinds = lang === 'python' ? ['string'] : ['string', 'template_string', 'regex'];
  const literal = { any: kinds.map((kind) => ({ kind })) };
  const outermost = {
    any: [{ kind: 'comment' }, { ...literal, not: { inside: { ...literal, stopBy: 'end' } } }],
  };
  return root
    .findAll({ rule: outermost as never })
    .map((node) => `${node.kind() === 'comment' ? 'c' : 's'}:${node.text()}`)
    .sort();
}

function fromLexer(text: string, family: 'python' | 'typescript' = 'python'): string[] {
  const { comments, strings } = lex(text, family);
  const spans = (pairs: number[], kind: string) =>
    pairs.flatMap((start, index) => (index % 2 ? [] : [`${kind}:${text.slice(start, pairs[index + 1])}`]));
  return [...spans(comments, 'c'), ...spans(strings, 's')].sort();
}

// Each line or block is a file the tree reads without an error.
const files = [
  `a = f"{d["#"]}"  # a comment after`,
  `b = f"{x:>{width}} {{braces}} {y!r} {z=}"`,
  `c = f"{\n    ", ".join(rows)  # inside the braces\n} rows"`,
  `d = f"{'}'}" + f'{"{"}'`,
  `e = rf"{path}\\d" + fr'{x}' + Rb"\\x" + u'ü'`,
  `f = f"""{\n"a" if x else "b"\n}""" + '''it's'''`,
  `g = f"{f"{f"{x}"}"}"`,
  `h = "# not a comment" + 'a \\' quote'  # "not a string"`,
  `i = f"{x!r:{'>' if left else '<'}10}"`,
  `j = ("one"\n     "two")`,
];

describe('Python lexer', () => {
  it('finds the comments and strings the tree finds, f-strings of Python 3.12 included', () => {
    for (const text of files) expect(fromLexer(text), text).toEqual(fromTree(text));
  });

  it('reads f-strings nested thousands deep, past what Python allows, without exhausting the stack', () => {
    const literal = `${'f"{'.repeat(5000)}y${'}"'.repeat(5000)}`;
    const text = `x = ${literal}\nz = 1\n`;
    expect(lex(text, 'python')).toEqual({ comments: [], strings: [4, 4 + literal.length] });
  });

  it('ends an f-string whose braces never close at the end of its line', () => {
    const text = 'a = f"unclosed {x\nb = "next"\n';
    expect(fromLexer(text)).toEqual(['s:"next"', 's:f"unclosed {x']);
  });
});

describe('TypeScript lexer', () => {
  const scripts = [
    '#!/usr/bin/env node\nconst a = 1; // after the interpreter line',
    `const r = /[/"']+/g.test(x) ? a / b / c : "//no comment";`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source text, a template inside a template.
    'const t = `a ${`b ${c + "}"}`} d`; // done',
    `/* "not a string" */ const s = 'it\\'s' + "a \\"quote\\"";`,
  ];
  it('finds the comments, strings and regexes the tree finds', () => {
    for (const text of scripts)
      expect(fromLexer(text, 'typescript'), text).toEqual(fromTree(text, 'typescript'));
  });
});
