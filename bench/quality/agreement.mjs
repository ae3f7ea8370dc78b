#!/usr/bin/env node
// Agreement of @longhaul/metrics' cyclomatic complexity with mccabe (Debian's python3-mccabe) on a
// large Python tree. Build first: `npx turbo run build --filter=@longhaul/metrics`, then
// `node bench/quality/agreement.mjs [ROOT]` (default /usr/lib/python3.11).
//
// The two definitions differ on purpose (see core/metrics/README.md): ours, like the reference tool
// (scb-check), counts boolean operators, comprehensions and their if clauses, conditional
// expressions and asserts, and one point per except clause; mccabe counts none of those, adds one
// point per try statement on top of one per handler, and one per nested function (a closure is a
// branch of its parent's graph), and never looks inside `finally:` blocks. The report gives the raw agreement, the agreement where the two
// definitions coincide (none of those constructs in the function), and the agreement after
// translating ours into mccabe's terms; it lists what is left.
import { parse } from '@ast-grep/napi';
import { analyzeProject, readSourceTree, registerGrammars } from '@longhaul/metrics';
import { pythonTree, runMccabe } from './common.mjs';

const root = process.argv[2] ?? pythonTree;
const notCountedByMccabe = [
  'boolean_operator',
  'list_comprehension',
  'set_comprehension',
  'dictionary_comprehension',
  'generator_expression',
  'if_clause',
  'conditional_expression',
  'assert_statement',
];

registerGrammars();
const sources = await readSourceTree(root, { languages: ['python'] });
const report = await analyzeProject(sources, { rules: false });
const mccabe = runMccabe(sources.map((file) => file.file));

// Per callable: try statements and nested function definitions, which mccabe counts and we do
// not, and the decision points inside `finally:` blocks, which mccabe never visits.
const decisionKinds = [
  'if_statement',
  'elif_clause',
  'for_statement',
  'while_statement',
  'except_clause',
  ...notCountedByMccabe,
];
const extra = new Map();
for (const source of sources) {
  const nodes = parse('python', source.text)
    .root()
    .findAll({
      rule: {
        any: [
          {
            any: [...decisionKinds, 'try_statement', 'function_definition'].map((kind) => ({ kind })),
            inside: { kind: 'finally_clause', stopBy: 'end' },
          },
          { kind: 'try_statement' },
          { kind: 'function_definition' },
        ],
      },
    });
  extra.set(
    source.file,
    nodes.map((node) => {
      const kind = node.kind();
      const inFinally = node.inside({
        rule: { inside: { kind: 'finally_clause', stopBy: 'end' }, regex: '' },
      });
      // Inside `finally:` mccabe sees nothing: our decision points there are taken out, and try
      // statements and functions there add nothing.
      const label = inFinally
        ? notCountedByMccabe.includes(kind) || kind === 'try_statement' || kind === 'function_definition'
          ? 'ignored'
          : 'finally'
        : kind;
      return { kind: label, line: node.range().start.line + 1 };
    }),
  );
}

const ours = new Map();
for (const callable of report.callables) {
  if (callable.depth !== 0) continue;
  const file = sources.find((source) => source.path === callable.file)?.file;
  ours.set(`${file}:${callable.startLine}`, { ...callable, absolute: file });
}

let compared = 0;
let raw = 0;
let coincide = 0;
let coincideAgree = 0;
let translatedAgree = 0;
const left = [];
const reasons = new Map();
for (const row of mccabe.rows) {
  const callable = ours.get(`${row.file}:${row.line}`);
  if (!callable) continue;
  compared++;
  const inside = (extra.get(row.file) ?? []).filter(
    (node) => node.line >= callable.startLine && node.line <= callable.endLine,
  );
  const tries = inside.filter((node) => node.kind === 'try_statement').length;
  const nested = inside.filter(
    (node) => node.kind === 'function_definition' && node.line !== callable.startLine,
  ).length;
  const uncounted = notCountedByMccabe.reduce((total, kind) => total + (callable.decisions[kind] ?? 0), 0);
  const inFinally = inside.filter((node) => node.kind === 'finally').length;
  if (callable.cc === row.complexity) raw++;
  if (!uncounted && !tries && !nested) {
    coincide++;
    if (callable.cc === row.complexity) coincideAgree++;
  }
  const translated = callable.cc - uncounted + tries + nested - inFinally;
  if (translated === row.complexity) translatedAgree++;
  else left.push({ ...row, ours: callable.cc, translated });
  if (callable.cc !== row.complexity) {
    const kinds = [
      ...notCountedByMccabe.filter((kind) => callable.decisions[kind]),
      ...(tries ? ['try_statement'] : []),
      ...(nested ? ['nested function'] : []),
      ...(inFinally ? ['decision inside finally'] : []),
    ];
    for (const kind of kinds) reasons.set(kind, (reasons.get(kind) ?? 0) + 1);
  }
}

const pct = (part, whole) => `${((100 * part) / Math.max(whole, 1)).toFixed(2)}%`;
console.log(
  `${root}: ${sources.length} files, ${report.summary.callables} callables; mccabe reported ${mccabe.rows.length} functions`,
);
console.log(`compared (same file and def line, top-level functions and methods): ${compared}`);
console.log(`raw agreement: ${raw}/${compared} = ${pct(raw, compared)}`);
console.log(
  `where the definitions coincide (no boolean operator, comprehension, conditional expression, assert, try or nested function): ${coincideAgree}/${coincide} = ${pct(coincideAgree, coincide)}`,
);
console.log(
  `after translating ours into mccabe's terms: ${translatedAgree}/${compared} = ${pct(translatedAgree, compared)}`,
);
console.log('constructs present in the functions that differ (a function can have several):');
for (const [kind, count] of [...reasons].sort((a, b) => b[1] - a[1]))
  console.log(`  ${kind.padEnd(26)} ${count}`);
console.log(`left after translation: ${left.length}`);
for (const row of left.slice(0, 15)) {
  console.log(
    `  ${row.file}:${row.line} ${row.name}: mccabe ${row.complexity}, ours ${row.ours}, translated ${row.translated}`,
  );
}
const missing = mccabe.rows.filter((row) => !ours.has(`${row.file}:${row.line}`));
console.log(`mccabe functions with no top-level callable of ours at the same line: ${missing.length}`);
for (const row of missing.slice(0, 5)) console.log(`  ${row.file}:${row.line} ${row.name}`);
