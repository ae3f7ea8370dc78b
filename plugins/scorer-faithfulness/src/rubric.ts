/** The five-level component-faithfulness rubric (SLUMP, Table 1), verbatim. */
export const rubric = [
  { score: 0, label: 'Absent', definition: 'No code attempts this component.' },
  {
    score: 1,
    label: 'Wrong',
    definition: 'Code attempts the component but implements logic inconsistent with the specification.',
  },
  {
    score: 2,
    label: 'Simplified',
    definition: 'Code implements a degraded or approximate version of the intended component.',
  },
  {
    score: 3,
    label: 'Equivalent',
    definition: 'Code differs in form but preserves the same functional behavior and system role.',
  },
  {
    score: 4,
    label: 'Faithful',
    definition: 'Code closely matches the intended formulation and architectural realization.',
  },
] as const;

export type RubricScore = 0 | 1 | 2 | 3 | 4;

export function rubricLabel(score: number): string {
  return rubric[score]?.label ?? `score ${score}`;
}

export function rubricText(): string {
  return rubric.map((level) => `${level.score} ${level.label}: ${level.definition}`).join('\n');
}
