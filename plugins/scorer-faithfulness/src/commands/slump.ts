import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  type CommandContext,
  defineCommand,
  formatColumns,
  loadExperiment,
  runCommandLine,
} from '@longhaul/core';
import { Command } from 'commander';
import { agreement, parseLabels, quadraticKappa } from '../calibration.js';
import { type ExposureAudit, exposureAudit, llmExposureLevels } from '../exposure.js';
import { gatewayModel } from '../gateway-model.js';

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);
const fixed = (value: number | null) => (value === null ? '–' : value.toFixed(3));

const description = "SLUMP's exposure audit and judge calibration";

/** `longhaul slump audit|calibrate`: SLUMP's exposure audit and judge calibration. */
export const slumpCommand = defineCommand({
  name: 'slump',
  description,
  run: (args, context) =>
    runCommandLine(
      new Command('longhaul slump').description(description),
      (slump) => define(slump, context),
      args,
      context,
    ),
});

const collect = (value: string, previous: string[]) => [...previous, value];

function printAudit(audit: ExposureAudit, context: CommandContext): void {
  const rows = audit.components.map((c) => [
    c.component,
    String(c.level),
    c.request ?? '–',
    c.firstRecoverable === null ? '–' : String(c.firstRecoverable),
    c.firstExplicit === null ? '–' : String(c.firstExplicit),
  ]);
  context.stdout.write(
    `${audit.task}: RCR ${fixed(audit.rcr)}, ESR ${fixed(audit.esr)}, ${audit.recoverable}/${audit.components.length} recoverable\n` +
      `${formatColumns([['COMPONENT', 'LEVEL', 'REQUEST', 'RECOVERABLE AT', 'EXPLICIT AT'], ...rows])}\n` +
      `exposure curve (turn: recoverable / explicit): ${audit.curve
        .map((point) => `${point.turn}:${percent(point.recoverable)}/${percent(point.explicit)}`)
        .join(' ')}\n`,
  );
}

function define(slump: Command, context: CommandContext): void {
  slump
    .command('audit')
    .description(
      'Per component of each emergent-spec script: the request that discloses it, how explicitly, RCR, ESR and the exposure curve',
    )
    .argument('<experiment>', 'experiment YAML file whose tasks are audited')
    .option(
      '--model <name>',
      "also re-derive the levels from the request texts with this model of the experiment's models:",
    )
    .option('--json', 'print the audit as JSON')
    .option('--set <key=value>', 'override a key before validation (value is YAML; repeatable)', collect, [])
    .action(async (file: string, options: { model?: string; json?: boolean; set: string[] }) => {
      const installDir = context.installDir === undefined ? {} : { installDir: context.installDir };
      const experiment = await loadExperiment(file, {
        set: options.set,
        cwd: context.cwd,
        ...installDir,
      });
      const tasks = experiment.tasks.filter((task) => (task.components ?? []).length > 0);
      if (tasks.length === 0) {
        context.stderr.write(`${file}: no task has components to audit\n`);
        process.exitCode = 2;
        return;
      }
      let llm: ((task: (typeof tasks)[number]) => Promise<ExposureAudit>) | undefined;
      let close = async () => {};
      if (options.model) {
        const gateway = await context.openGateway(experiment.config.models, {
          baseDir: experiment.config.baseDir,
          configFile: file,
        });
        close = () => gateway.close();
        const model = await gatewayModel(gateway, 'exposure-audit', options.model, 'longhaul slump audit');
        llm = async (task) => exposureAudit(await llmExposureLevels(model, task));
      }
      try {
        const results = [];
        for (const task of tasks) {
          const authored = exposureAudit(task);
          const derived = llm ? await llm(task) : undefined;
          const kappa = derived
            ? quadraticKappa(
                authored.components.map((c) => c.level),
                derived.components.map((c) => c.level),
              )
            : undefined;
          results.push({ authored, derived, kappa });
          if (!options.json) {
            printAudit(authored, context);
            if (derived) {
              context.stdout.write(`re-derived by ${options.model}:\n`);
              printAudit(derived, context);
              context.stdout.write(`agreement of levels (quadratic-weighted κ): ${fixed(kappa ?? null)}\n`);
            }
          }
        }
        if (options.json) context.stdout.write(`${JSON.stringify(results, null, 1)}\n`);
      } finally {
        await close();
      }
    });
  slump
    .command('calibrate')
    .description(
      'Agreement of the faithfulness judge with human labels: quadratic-weighted κ overall and per rubric level',
    )
    .argument(
      '<labels>',
      'CSV: a header, then one row per component-run pair; id columns plus one 0–4 column per rater',
    )
    .option(
      '--reference <column>',
      'the rater the others are compared with (default: the first rater column)',
    )
    .option('--json', 'print the results as JSON')
    .action(async (file: string, options: { reference?: string; json?: boolean }) => {
      const table = parseLabels(await readFile(resolve(context.cwd, file), 'utf8'), file);
      const names = Object.keys(table.raters);
      const reference = options.reference ?? names[0]!;
      if (!table.raters[reference]) {
        context.stderr.write(`${file}: no rater column '${reference}' (columns: ${names.join(', ')})\n`);
        process.exitCode = 2;
        return;
      }
      const results = names
        .filter((name) => name !== reference)
        .map((name) => ({
          rater: name,
          reference,
          ...agreement(table.raters[reference]!, table.raters[name]!),
        }));
      if (options.json) {
        context.stdout.write(`${JSON.stringify(results, null, 1)}\n`);
        return;
      }
      const rows = results.map((r) => [
        `${r.reference}–${r.rater}`,
        fixed(r.kappa),
        percent(r.exact),
        fixed(r.spearman),
        percent(r.withinOne),
        percent(r.boundary23),
        percent(r.boundary34),
        String(r.falseAbsence),
        r.perLevel.map((level) => `${level.level}:${fixed(level.kappa)}`).join(' '),
      ]);
      context.stdout.write(
        `${table.rows} pairs\n${formatColumns([['PAIR', 'κ (QUADRATIC)', 'EXACT', 'SPEARMAN', '±1', '2–3', '3–4', 'FALSE ABSENT', 'κ PER LEVEL'], ...rows])}\n`,
      );
    });
}
