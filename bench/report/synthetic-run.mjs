// A synthetic run store: `trials` trials over a few tasks and two conditions, each with `steps`
// steps holding a prompt, a trajectory, a diff, test cases and scores, shaped like a real run's.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const usage = (cost) => ({
  inputTokens: 1200,
  outputTokens: 300,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: cost,
});

export async function writeSyntheticRun(
  dir,
  { trials, steps = 5, conditions = ['oracle/just-solve/none', 'oracle/anti-slop/none'] },
) {
  await mkdir(join(dir, 'trials'), { recursive: true });
  const records = [];
  for (let t = 0; t < trials; t++) {
    const condition = conditions[t % conditions.length];
    const task = `task${Math.floor(t / conditions.length) % 10}`;
    const repeat = Math.floor(t / (conditions.length * 10)) + 1;
    const id = `${task}.${condition.replaceAll('/', '.')}.r${repeat}`;
    const trialDir = join(dir, 'trials', id);
    const stepRecords = [];
    for (let s = 0; s < steps; s++) {
      const stepId = `step${s + 1}`;
      const stepDir = join(trialDir, 'steps', `${String(s + 1).padStart(2, '0')}-${stepId}`);
      await mkdir(join(stepDir, 'tests', `${String(s + 1).padStart(2, '0')}-${stepId}`, 'core'), {
        recursive: true,
      });
      const strict = (t + s) % 3 === 0 ? 0 : 1;
      const scores = {
        'tests.strict': strict,
        'tests.pass_rate': strict ? 1 : 0.5,
        'quality.erosion': 0.3 + s * 0.05 + (t % 7) * 0.01,
        'quality.verbosity': 0.1 + s * 0.02,
      };
      const cases = [0, 1, 2].map((c) => ({
        id: `${stepId}/core/case${c}`,
        step: stepId,
        category: 'core',
        passed: c < 2 || strict === 1,
      }));
      for (const found of cases) {
        await writeFile(
          join(
            stepDir,
            'tests',
            `${String(s + 1).padStart(2, '0')}-${stepId}`,
            'core',
            `${found.id.split('/')[2]}.json`,
          ),
          JSON.stringify(
            { case: found.id, passed: found.passed, actual: { stdout: 'x'.repeat(800) } },
            null,
            2,
          ),
        );
      }
      const diff = [
        `diff --git a/main.py b/main.py`,
        '--- a/main.py',
        '+++ b/main.py',
        '@@ -1,3 +1,40 @@',
        ...Array.from({ length: 120 }, (_, i) => `+line ${i} of step ${s + 1}: value = compute(${i})`),
      ].join('\n');
      const trajectory = [
        { type: 'session.start', sessionId: `s${t}`, resumed: false, model: 'scripted' },
        { type: 'message', role: 'user', text: `Implement step ${s + 1}` },
        ...Array.from({ length: 10 }, (_, i) => [
          {
            type: 'tool.call',
            id: `c${i}`,
            name: 'write_file',
            input: { path: `f${i}.py`, content: 'print(1)\n'.repeat(40) },
          },
          { type: 'tool.result', id: `c${i}`, output: `wrote f${i}.py`, isError: false },
        ]).flat(),
        { type: 'message', role: 'assistant', text: 'Done.' },
      ];
      await writeFile(
        join(stepDir, 'prompt.md'),
        `# Step ${s + 1}\n\n${'Add a feature to the tool. '.repeat(60)}\n`,
      );
      await writeFile(join(stepDir, 'diff.patch'), `${diff}\n`);
      await writeFile(
        join(stepDir, 'trajectory.jsonl'),
        `${trajectory.map((e) => JSON.stringify(e)).join('\n')}\n`,
      );
      await writeFile(
        join(stepDir, 'scores.json'),
        JSON.stringify(
          { step: stepId, index: s, status: 'ok', scores, details: { tests: { strict: { cases } } } },
          null,
          2,
        ),
      );
      stepRecords.push({
        index: s,
        id: stepId,
        status: 'ok',
        turns: 1,
        durationMs: 20_000 + s * 1000,
        usage: usage(0.01 * (s + 1)),
        scores,
      });
    }
    const record = {
      id,
      task,
      condition,
      repeat,
      status: 'ok',
      durationMs: stepRecords.reduce((sum, step) => sum + step.durationMs, 0),
      usage: usage(stepRecords.reduce((sum, step) => sum + step.usage.costUsd, 0)),
      steps: stepRecords,
      scores: {
        'tests.solved_steps': stepRecords.filter((step) => step.scores['tests.strict'] === 1).length,
      },
    };
    await writeFile(join(trialDir, 'trial.json'), JSON.stringify(record, null, 2));
    records.push(record);
  }
  await writeFile(join(dir, 'events.jsonl'), '');
  return records;
}
