import type { PromptPreset } from './prompts.js';

/**
 * SWE-STEPS's three settings (the paper's appendix prompts, in our own words). The same preset
 * name picks the text that fits the script: `isolated` is the individual setting, `conversation`
 * the global one, `single-shot` the PRD one, and `checkpoints` (fresh context per request, the
 * workspace carries) the local variant. The paper's `{feedback}` is not in the first prompt: test
 * failures reach the agent as the prompt of the next feedback cycle.
 */
export type SweStepsScript = 'checkpoints' | 'conversation' | 'single-shot' | 'isolated';

/** Reflection cycles per request (3 in the paper): the first turn plus this many feedback cycles. */
export const sweStepsFeedbackCycles = 2;

const rules = [
  'Rules you must follow:',
  '- Do not run tests in any way: no `pytest`, `python -m pytest`, `tox`, `nox`, `nose`, `unittest`, `coverage run` or any other test runner, and no script that runs tests.',
  '- When your turn ends the tests are run for you; if some fail, their output comes back to you. Treat that output as the ground truth about which tests fail.',
  '- Make small, deterministic changes. Prefer editing existing files to creating new ones, and keep every file you edit syntactically valid.',
  '- Do not add or change tests unless the request asks for it.',
  '- Never give anything you run a timeout longer than 120 seconds.',
].join('\n');

/** Blocks of a prompt, a blank line between them. */
const paragraphs = (...blocks: string[]) => `${blocks.join('\n\n')}\n`;

const lookAway = 'Do not read test files or run test cases unless a request tells you to.';

const single: PromptPreset = {
  template: paragraphs(
    'You are working on ONE pull request in the repository in your current directory.',
    '{{continuation}}',
    '{{spec}}',
    'This is a single pull request: you are not working through a list of requests, and no other pull request is tested with it. Focus on this request alone.',
    rules,
  ),
  firstNote: 'The repository is at the commit this request starts from.',
  continuationNote:
    'The repository holds every earlier pull request of the series, merged as its authors wrote it.',
};

const sequential: PromptPreset = {
  template: paragraphs(
    'You are working in the repository in your current directory.',
    '{{continuation}}',
    '{{spec}}',
    lookAway,
    rules,
  ),
  firstNote: 'Here is the first request of a series of pull requests on this repository.',
  continuationNote:
    'Here is the next request of the series. The repository holds your own work on the earlier ones; keep what they asked for working.',
};

const local: PromptPreset = {
  ...sequential,
  continuationNote:
    'Here is the next request of a series of pull requests on this repository. The repository holds work on the earlier ones; keep what they asked for working.',
};

/** PRD: the planning turn gets the whole document; the work turn continues the same session. */
const prd: PromptPreset & { planningTemplate: string } = {
  planningTemplate: paragraphs(
    'You are working in the repository in your current directory.',
    'Below is a document that lists every code and documentation change to implement, as one piece of work.',
    '{{spec}}',
    'Before any code changes, plan. Read the document and the repository, then write PLAN.md at the root of the repository: the objective, what each request needs and where it goes, the order to implement them in, and the rules below. Change no other file in this turn.',
    lookAway,
    rules,
  ),
  template: paragraphs(
    'Now implement every request of the document, following PLAN.md step by step. If new evidence (test output) shows the plan no longer holds, update PLAN.md first, then go on.',
    lookAway,
    rules,
  ),
  firstNote: '',
  continuationNote: '',
};

export const sweStepsPrompts: Record<SweStepsScript, PromptPreset & { planningTemplate?: string }> = {
  isolated: single,
  conversation: sequential,
  checkpoints: local,
  'single-shot': prd,
};
