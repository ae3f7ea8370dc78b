import { XMLParser } from 'fast-xml-parser';

export interface JunitTest {
  /** `<file>::<name>`, as pytest names a test. */
  id: string;
  file: string;
  name: string;
  markers: string[];
  outcome: 'passed' | 'failed' | 'error' | 'skipped';
  /** The failure or error message, first line. */
  message?: string;
  durationMs: number;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // pytest writes a message's newlines and control characters as character references (`&#10;`),
  // which the parser leaves as they are unless told to decode them.
  htmlEntities: true,
  isArray: (name) => ['testsuite', 'testcase', 'property', 'failure', 'error', 'skipped'].includes(name),
});

type Node = Record<string, unknown>;

function firstLine(node: unknown): string | undefined {
  const item = (node as Node[] | undefined)?.[0];
  if (item === undefined) return undefined;
  const text = typeof item === 'string' ? item : String(item.message ?? item['#text'] ?? '');
  return text.split('\n')[0]?.slice(0, 300);
}

/** Every test case of a pytest JUnit XML report, with the markers the longhaul plugin recorded. */
export function parseJunit(xml: string): JunitTest[] {
  const root = parser.parse(xml) as Node;
  const suites = ((root.testsuites as Node | undefined)?.testsuite ?? root.testsuite ?? []) as Node[];
  const tests: JunitTest[] = [];
  for (const suite of suites) {
    for (const testcase of (suite.testcase ?? []) as Node[]) {
      const properties = ((testcase.properties as Node | undefined)?.property ?? []) as Node[];
      const property = (name: string) =>
        properties.find((item) => item.name === name)?.value as string | undefined;
      const classname = String(testcase.classname ?? '');
      const file = property('longhaul.file') ?? `${classname.split('.').at(-1)}.py`;
      const name = String(testcase.name ?? '');
      const outcome = testcase.error
        ? 'error'
        : testcase.failure
          ? 'failed'
          : testcase.skipped
            ? 'skipped'
            : 'passed';
      tests.push({
        id: `${file}::${name}`,
        file,
        name,
        markers: (property('longhaul.markers') ?? '').split(',').filter(Boolean),
        outcome,
        message: firstLine(testcase.error ?? testcase.failure ?? testcase.skipped),
        durationMs: Math.round(Number(testcase.time ?? 0) * 1000),
      });
    }
  }
  return tests;
}
