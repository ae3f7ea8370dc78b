import { z } from 'zod';

const idPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const id = z.string().regex(idPattern, 'letters, digits, ".", "_" and "-" only');

export const componentSchema = z.strictObject({
  id,
  description: z.string().min(1).describe('All the judge is told about the component'),
  location: z.string().optional().describe('The file, module or behaviour it should end up in'),
});

export const requestSchema = z.strictObject({
  id,
  phase: z.string().min(1).describe('framing, components, integration (or any phase names the script uses)'),
  text: z.string().min(1).describe('All the agent sees of this request'),
  discloses: z
    .array(
      z.strictObject({
        component: z.string(),
        explicitness: z
          .number()
          .int()
          .min(0)
          .max(4)
          .describe(
            '0 not recoverable, 1 weakly, 2 with residual ambiguity, 3 clearly, 4 explicitly specified',
          ),
      }),
    )
    .default([]),
});

export const scriptFileSchema = z.strictObject({
  id,
  title: z.string().min(1),
  description: z.string().optional(),
  entrypoint: z.string().min(1).describe('How the finished program is run, e.g. "python3 main.py"'),
  language: z.string().min(1),
  environment: z
    .strictObject({
      image: z.string().optional(),
      setup: z.array(z.string()).optional(),
      toolchains: z.array(z.string()).optional(),
      network: z.enum(['none', 'open']).optional(),
    })
    .default({}),
  phases: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('The phases in the order requests must go through them'),
  components: z.array(componentSchema).min(1),
  requests: z.array(requestSchema).min(1),
  fullSpec: z
    .string()
    .min(1)
    .optional()
    .describe('The single-shot specification; or a full-spec.md next to script.yaml'),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type ScriptFile = z.output<typeof scriptFileSchema>;
