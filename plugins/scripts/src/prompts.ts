import { type SweStepsScript, sweStepsFeedbackCycles, sweStepsPrompts } from './swe-steps-prompts.js';

/**
 * Prompt strategies of SlopCodeBench's prompt study (the paper's Appendix B), in our own words:
 * `just-solve` asks only for a working program; `anti-slop` adds coding guidelines against
 * verbose, defensive and over-abstracted code; `plan-first` asks for a plan, a simple solution,
 * a correctness pass and a refactor. Each is a template plus the two notes that say whether the
 * turn starts the work or continues it.
 */
export const promptNames = ['just-solve', 'anti-slop', 'plan-first', 'swe-steps'] as const;
export type PromptName = (typeof promptNames)[number];

export interface PromptPreset {
  template: string;
  firstNote: string;
  continuationNote: string;
}

const habitsToAvoid = [
  'defensive checks or try/except blocks beyond what the situation calls for',
  'casts that exist only to get past type checking',
  'variables assigned once and read once right after',
  'comments a human author would not write',
  'wrappers that only forward to another function',
  'deep nesting',
  'long if/elif chains',
  'a pile of small helper functions',
]
  .map((habit) => `  - ${habit}`)
  .join('\n');

const keepEnvironment =
  'Keep working in the virtual environment you set up earlier, and add any new dependency to requirements.txt.';
const startEnvironment =
  'Work in a virtual environment, and keep a requirements.txt that lists every dependency you use.';

export const prompts: Record<Exclude<PromptName, 'swe-steps'>, PromptPreset> = {
  'just-solve': {
    template:
      'Implement a program that satisfies the specification below completely. Nothing else is asked of you.\n\n{{continuation}}\n\nThe specification:\n\n{{spec}}\n',
    firstNote: `${startEnvironment} The program is run as \`{{entrypoint}}\`.`,
    continuationNote: `${keepEnvironment} The program is still run as \`{{entrypoint}}\`.`,
  },
  'anti-slop': {
    template: [
      'You are an excellent Python engineer, and your job is to implement a specification.',
      '',
      '{{continuation}}',
      '',
      'How to work:',
      '- Stay inside this directory.',
      '- Put functions in files by what they are responsible for, and keep the code clean.',
      '- No function or class that does everything.',
      '- Document the code well enough that someone new can pick it up.',
      '- Keep these habits out of your code:',
      habitsToAvoid,
      '',
      'The specification:',
      '',
      '{{spec}}',
      '',
    ].join('\n'),
    firstNote: `Write the program that satisfies the whole specification; it is run as \`{{entrypoint}}\`. ${startEnvironment}`,
    continuationNote:
      `The specification has grown, and you are updating your existing code to match it. ${keepEnvironment} ` +
      'Implement only what is new or changed below, and try every example it gives. The program is still run as `{{entrypoint}}`.',
  },
  'plan-first': {
    template: [
      'You are an experienced programmer with a task to implement.',
      '',
      '{{continuation}}',
      '',
      'Always work in this order:',
      '1. Before writing code, plan what you need to build.',
      '2. Write the simplest solution that works.',
      '3. Make sure it is completely correct, edge cases included.',
      '4. Refactor until the code is of high quality.',
      '',
      'Style rules:',
      '- Document the code well enough that someone new can pick it up.',
      '- Keep these habits out of your code:',
      habitsToAvoid,
      '- Put functions in files by what they are responsible for, and keep the code clean.',
      '',
      'The specification:',
      '',
      '{{spec}}',
      '',
    ].join('\n'),
    firstNote: `${startEnvironment} The program is run as \`{{entrypoint}}\`.`,
    continuationNote: `${keepEnvironment} The program is still run as \`{{entrypoint}}\`.`,
  },
};

/** Options as plans read them: the preset's texts in place and every default resolved. */
export type ResolvedOptions<T> = Omit<T, 'feedbackCycles' | 'planningTurn'> & {
  feedbackCycles: number;
  /** Template of a turn before the work that scores nothing (single-shot only). */
  planningTurn?: string;
};

/**
 * Options with the chosen preset's template and notes in place (unchanged without `prompt`).
 * `swe-steps` picks the text of the SWE-STEPS setting the script runs and defaults the
 * feedback cycles to the paper's reflection budget.
 */
export function withPrompt<
  T extends PromptPreset & { prompt?: PromptName; feedbackCycles?: number; planningTurn?: unknown },
>(options: T, script: SweStepsScript): ResolvedOptions<T> {
  const planningTurn = typeof options.planningTurn === 'string' ? options.planningTurn : undefined;
  if (options.prompt === 'swe-steps') {
    const { planningTemplate, ...preset } = sweStepsPrompts[script];
    return {
      ...options,
      ...preset,
      feedbackCycles: options.feedbackCycles ?? sweStepsFeedbackCycles,
      planningTurn: planningTurn ?? planningTemplate,
    };
  }
  const preset = options.prompt ? prompts[options.prompt] : {};
  return { ...options, ...preset, feedbackCycles: options.feedbackCycles ?? 0, planningTurn };
}
