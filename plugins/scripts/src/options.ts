import { z } from 'zod';
import { placeholders, unknownPlaceholders } from './prompt.js';
import { promptNames } from './prompts.js';

const placeholderList = placeholders.map((p) => `{{${p}}}`).join(', ');

export const defaultTemplate = '{{continuation}}\n\n{{spec}}\n';

export const notes = {
  first:
    'Write a program in this workspace that fully meets the specification below. It is run as `{{entrypoint}}`. ' +
    'If it needs third-party packages, list them in the usual manifest for its language (for Python, requirements.txt).',
  ownWork:
    'This workspace holds the program you wrote for the earlier parts of this specification. ' +
    'Extend your own code so that it also meets the new part below, and keep everything that already works working. ' +
    'It is still run as `{{entrypoint}}`; list any new third-party packages in the same manifest.',
  nextInConversation:
    'Here is the next part of the same specification. Extend the program you have been writing so that it also ' +
    'meets it, and keep everything that already works working. It is still run as `{{entrypoint}}`.',
  reference:
    'This workspace holds a working implementation of the earlier parts of this specification. ' +
    'Extend it so that it also meets the new part below, and keep everything that already works working. ' +
    'It is run as `{{entrypoint}}`; list any new third-party packages in the manifest for its language.',
};

function placeholderText() {
  return z.string().superRefine((text, ctx) => {
    for (const name of unknownPlaceholders(text)) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown placeholder {{${name}}}; known: ${placeholderList}`,
      });
    }
  });
}

function templateText(description: string, fallback: string) {
  return placeholderText().default(fallback).describe(description);
}

const sandboxOption = z
  .enum(['keep', 'fresh'])
  .default('keep')
  .describe(
    'keep: every turn of a trial runs in one sandbox. fresh: each step after the first starts in a new sandbox (a new container with Docker) holding only the workspace the previous step left, as SlopCodeBench runs each checkpoint; packages installed outside the workspace and files the environment excludes from snapshots do not carry over.',
  );

/**
 * The options every built-in script takes; defaults of the notes differ per script. `sandbox`
 * only for scripts whose turns each start a fresh session (a fresh sandbox needs one);
 * `planningTurn` only for single-shot.
 */
export function scriptOptions(
  defaults: { firstNote: string; continuationNote: string },
  offers: { sandbox?: boolean; planning?: boolean } = {},
) {
  const defaultsByKey = { template: defaultTemplate, ...defaults };
  return z
    .object({
      prompt: z
        .enum(promptNames)
        .optional()
        .describe(
          "A prompt strategy of SlopCodeBench's prompt study: just-solve, anti-slop or plan-first. It sets template, firstNote and continuationNote, so leave those out.",
        ),
      template: templateText(
        `Prompt of each turn. Placeholders: ${placeholderList}. {{continuation}} is firstNote on the turn that starts the work and continuationNote on later ones.`,
        defaultTemplate,
      ),
      firstNote: templateText(
        'Text for {{continuation}} on the turn that starts the work.',
        defaults.firstNote,
      ),
      continuationNote: templateText(
        'Text for {{continuation}} on later turns, telling the agent what the workspace already holds.',
        defaults.continuationNote,
      ),
      feedbackCycles: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe(
          'Extra turns a step may take when its scores show failures, each with the failures as feedback (default 0; 2 with prompt swe-steps, three reflection cycles in all). limits.turnsPerStep caps them.',
        ),
      ...(offers.sandbox ? { sandbox: sandboxOption } : {}),
      ...(offers.planning
        ? {
            planningTurn: placeholderText()
              .optional()
              .describe(
                'Prompt of a turn before the work that scores nothing (e.g. "write PLAN.md first"); the work turn then continues its session. Same placeholders as template. Default: none (prompt swe-steps sets one).',
              ),
          }
        : {}),
    })
    .strict()
    .superRefine((value, ctx) => {
      if (!value.prompt) return;
      for (const [key, fallback] of Object.entries(defaultsByKey)) {
        if (value[key as keyof typeof defaultsByKey] === fallback) continue;
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `prompt '${value.prompt}' sets ${key}; give either prompt or ${key}, not both`,
        });
      }
    });
}

export type ScriptOptions = z.output<ReturnType<typeof scriptOptions>>;
