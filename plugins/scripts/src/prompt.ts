import type { Task } from '@longhaul/core';

export const placeholders = ['spec', 'entrypoint', 'step', 'steps', 'title', 'continuation'] as const;
export type Placeholder = (typeof placeholders)[number];

const placeholderPattern = /\{\{\s*([A-Za-z_]+)\s*\}\}/g;

/** Names inside `{{...}}` that are not placeholders, for option validation. */
export function unknownPlaceholders(template: string): string[] {
  return [...template.matchAll(placeholderPattern)]
    .map((match) => match[1] ?? '')
    .filter((name) => !(placeholders as readonly string[]).includes(name));
}

export function render(template: string, values: Record<Placeholder, string>): string {
  return template.replace(placeholderPattern, (whole, name: string) =>
    name in values ? values[name as Placeholder] : whole,
  );
}

export interface PromptOptions {
  template: string;
  firstNote: string;
  continuationNote: string;
}

/**
 * The prompt of a turn: the note for where the turn stands (starting the work, or continuing it)
 * rendered first, so notes may use the other placeholders, then the template around the spec.
 */
export function framePrompt(
  options: PromptOptions,
  task: Task,
  turn: { spec: string; step: string; title: string; continuation: boolean },
): string {
  const values: Record<Placeholder, string> = {
    spec: turn.spec.trim(),
    entrypoint: task.entrypoint,
    step: turn.step,
    steps: String(task.steps.length),
    title: turn.title,
    continuation: '',
  };
  values.continuation = render(
    turn.continuation ? options.continuationNote : options.firstNote,
    values,
  ).trim();
  return `${render(options.template, values).trim()}\n`;
}

/** Every step's prompt under a heading, for scripts that deliver the whole task at once. */
export function joinedSpec(task: Task): string {
  return task.steps
    .map((step) => `## Part ${step.index + 1}${step.title ? `: ${step.title}` : ''}\n\n${step.prompt.trim()}`)
    .join('\n\n');
}
