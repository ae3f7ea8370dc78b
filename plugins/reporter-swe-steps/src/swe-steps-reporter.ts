import { isAbsolute, join } from 'node:path';
import { type ReportContext, type Reporter, writeFileAtomic } from '@longhaul/core';
import type { ReporterOptions } from './options.js';
import { rowsOf } from './rows.js';
import { binTable, healthTable, inflationTable, successTable, testsTable } from './tables.js';

/** Prints SWE-STEPS's tables per condition from the experiment scorer `swe-steps-rates`. */
export class SweStepsReporter implements Reporter {
  constructor(private readonly options: ReporterOptions) {}

  async finish(ctx: ReportContext): Promise<void> {
    const rows = rowsOf(ctx.experimentScores, this.options.scorer);
    if (rows.length === 0) {
      ctx.print(
        `swe-steps: no scores from scorer '${this.options.scorer}'; add it to the experiment's scorers (scorers: [swe-steps, swe-steps-task, swe-steps-rates])`,
      );
      return;
    }
    const file = isAbsolute(this.options.file) ? this.options.file : join(ctx.runDir, this.options.file);
    await writeFileAtomic(file, `${JSON.stringify(rows, null, 2)}\n`);
    const sections: [string, string | undefined][] = [
      [
        'SWE-STEPS: PRs passed, tasks completed (per repository: PRs,tasks), PR success % and $ per task',
        successTable(rows),
      ],
      ['P2P % / F2P % per repository; averages pooled over tests', testsTable(rows)],
      [
        'Inflation of the individual setting: PR success points over the same agent in global and PRD',
        inflationTable(rows),
      ],
      ['PR success % (passed/PRs) by chain length (PRs in the task)', binTable(rows, 'chainLength')],
      [
        'PR success % (passed/PRs) by active suite size (tests that judged the PR)',
        binTable(rows, 'suiteSize'),
      ],
      [
        'Repository health: Δ cognitive complexity from the base commit per progress bin',
        healthTable(rows, 'cognitive'),
      ],
      [
        'Repository health: Δ technical debt (minutes) from the base commit per progress bin',
        healthTable(rows, 'debt'),
      ],
    ];
    ctx.print(
      [
        ...sections
          .filter(([, table]) => table !== undefined)
          .flatMap(([title, table]) => [title, table!, '']),
        `swe-steps: ${file}`,
      ].join('\n'),
    );
  }
}
