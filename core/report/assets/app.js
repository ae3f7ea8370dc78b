// The report page: reads the data block, draws the tables, the plots (Vega-Lite through
// vega-embed) and the trials. Every text from the run goes in through textContent, never as HTML:
// prompts, diffs and trajectories are written by the agent under test.
(() => {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const app = document.getElementById('app');

  /** Makes an element; strings become text nodes. */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes ?? {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
    }
    return node;
  }

  function duration(ms) {
    if (typeof ms !== 'number') return '-';
    const seconds = ms / 1000;
    if (seconds < 60) return `${seconds.toFixed(1)}s`;
    const whole = Math.round(seconds);
    const hours = Math.floor(whole / 3600);
    const minutes = Math.floor((whole % 3600) / 60);
    const rest = String(whole % 60).padStart(2, '0');
    return hours > 0 ? `${hours}h ${String(minutes).padStart(2, '0')}m ${rest}s` : `${minutes}m ${rest}s`;
  }

  function formatCell(value, format, digits) {
    // Nothing measured: a dash, never 0 (the legend under the tables says so).
    if (value === null || value === undefined) return '–';
    if (typeof value === 'boolean') return value ? 'yes' : 'no';
    if (typeof value !== 'number') return String(value);
    switch (format) {
      case 'percent':
        return `${(value * 100).toFixed(digits ?? 1)}%`;
      case 'usd':
        return `$${value.toFixed(digits ?? 2)}`;
      case 'duration':
        return duration(value);
      case 'text':
        return String(value);
      default:
        return digits === undefined ? String(Math.round(value * 1000) / 1000) : value.toFixed(digits);
    }
  }

  /** A table from columns {key, label, format, digits} and rows; raw values kept in data-value. */
  function table(columns, rows, attributes) {
    return el(
      'table',
      attributes,
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          columns.map((column) => el('th', {}, column.label)),
        ),
      ),
      el(
        'tbody',
        {},
        rows.map((row) =>
          el(
            'tr',
            {},
            columns.map((column) => {
              const cell = row[column.key];
              // A cell may be {text, value}: shown as text, its number kept for whoever reads it.
              const shown = cell && typeof cell === 'object' ? cell : { text: undefined, value: cell };
              return el(
                'td',
                {
                  'data-key': column.key,
                  'data-value': typeof shown.value === 'number' ? String(shown.value) : undefined,
                },
                shown.text ?? formatCell(shown.value, column.format, column.digits),
              );
            }),
          ),
        ),
      ),
    );
  }

  const plots = [];
  /** A chart container drawn once vega-embed is there; its spec is Vega-Lite. */
  function plot(title, spec) {
    const target = el('div', { class: 'plot-area' });
    plots.push(
      vegaEmbed(
        target,
        {
          $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
          width: 'container',
          height: 180,
          ...spec,
        },
        { actions: false, renderer: 'svg' },
      ).catch((error) => {
        target.textContent = `plot failed: ${error.message}`;
      }),
    );
    return el('figure', { class: 'plot' }, el('figcaption', {}, title), target);
  }

  /** A score over steps: the mean line with the spread (min–max over trials) as a band. */
  function seriesPlot(title, points) {
    const x = { field: 'step', type: 'ordinal', title: 'step' };
    const color = { field: 'condition', type: 'nominal' };
    return plot(title, {
      data: { values: points },
      layer: [
        {
          mark: { type: 'area', opacity: 0.2 },
          encoding: {
            x,
            y: { field: 'low', type: 'quantitative', title: title },
            y2: { field: 'high' },
            color,
          },
        },
        {
          mark: { type: 'line', point: true },
          encoding: {
            x,
            y: { field: 'mean', type: 'quantitative' },
            color,
            tooltip: [
              { field: 'condition' },
              { field: 'step' },
              { field: 'mean' },
              { field: 'low' },
              { field: 'high' },
              { field: 'trials' },
            ],
          },
        },
      ],
    });
  }

  /** A reporter's plot figure. */
  function figurePlot(figure) {
    const x = { field: figure.x.field, title: figure.x.title, type: figure.x.type ?? 'quantitative' };
    const y = { field: figure.y.field, title: figure.y.title, type: figure.y.type ?? 'quantitative' };
    const color = figure.color
      ? { field: figure.color.field, title: figure.color.title, type: 'nominal' }
      : undefined;
    const layer = [
      {
        mark: figure.mark === 'line' ? { type: 'line', point: true } : { type: figure.mark },
        encoding: { x, y, color },
      },
    ];
    if (figure.band) {
      layer.unshift({
        mark: { type: 'area', opacity: 0.2 },
        encoding: {
          x,
          y: { field: figure.band.low, type: 'quantitative' },
          y2: { field: figure.band.high },
          color,
        },
      });
    }
    return plot(figure.title, { data: { values: figure.data }, layer });
  }

  // An interval only where two or more values stand behind the mean (the model leaves low and
  // high null otherwise); the n is always shown.
  const interval = (stat) =>
    stat
      ? {
          text:
            stat.low === null || stat.high === null
              ? `${formatCell(stat.mean)} n=${stat.n}`
              : `${formatCell(stat.mean)} [${formatCell(stat.low)}, ${formatCell(stat.high)}] n=${stat.n}`,
          value: stat.mean,
        }
      : '–';

  // Scores a reader looks at first; the others are in the tables and in each step.
  const preferred = [
    /\.strict$/,
    /\.pass_rate$/,
    /\.erosion$/,
    /\.verbosity$/,
    /\.clone_ratio$/,
    /\.if50$/,
    /\.mcf$/,
    /\.dir$/,
    /health|debt|cognitive/,
  ];
  function plottedKeys(run) {
    const keys = [...new Set(run.series.map((point) => point.key))].filter(
      (key) => key !== 'cost.usd' && key !== 'time.seconds',
    );
    const chosen = keys.filter((key) => preferred.some((pattern) => pattern.test(key)));
    return (chosen.length > 0 ? chosen : keys.slice(0, 6)).slice(0, 12);
  }

  function overview(run) {
    const section = el('section', { class: 'run', 'data-run': run.name });
    section.append(el('h2', {}, run.name), el('p', { class: 'dir' }, run.dir));
    section.append(el('h3', {}, 'Conditions × tasks'));
    section.append(
      table(
        [{ key: 'condition', label: 'condition' }, ...run.tasks.map((task) => ({ key: task, label: task }))],
        run.conditions.map((condition) => {
          const row = { condition };
          for (const cell of run.matrix.filter((m) => m.condition === condition)) row[cell.task] = cell.text;
          return row;
        }),
        { class: 'matrix' },
      ),
    );
    section.append(el('h3', {}, run.fromSummary ? 'Per condition (summary.json)' : 'Per condition (so far)'));
    section.append(
      table(
        [
          { key: 'condition', label: 'condition' },
          { key: 'trials', label: 'trials', format: 'number', digits: 0 },
          { key: 'steps', label: 'steps', format: 'number', digits: 0 },
          { key: 'scored', label: 'scored', format: 'number', digits: 0 },
          { key: 'errored', label: 'errored', format: 'number', digits: 0 },
          { key: 'cancelled', label: 'cancelled', format: 'number', digits: 0 },
          { key: 'strict', label: 'strict', format: 'percent' },
          { key: 'iso', label: 'iso', format: 'percent' },
          { key: 'core', label: 'core', format: 'percent' },
          { key: 'costUsd', label: 'cost', format: 'usd' },
          { key: 'inputTokens', label: 'input tokens', format: 'number', digits: 0 },
          { key: 'outputTokens', label: 'output tokens', format: 'number', digits: 0 },
          { key: 'durationMs', label: 'time', format: 'duration' },
        ],
        run.conditionRows.map((row) => ({
          ...row,
          errored: {
            value: row.errored,
            text: Object.keys(row.errorClasses).length
              ? `${row.errored} (${Object.entries(row.errorClasses)
                  .map(([name, count]) => `${count} ${name}`)
                  .join(', ')})`
              : String(row.errored),
          },
        })),
        { class: 'conditions' },
      ),
    );
    section.append(el('p', { class: 'legend' }, run.legend));
    if (run.conditionScores.length > 0) {
      const keys = [...new Set(run.conditionScores.map((s) => s.key))].sort();
      // Collapsed: experiment scorers give many scores; the tables below pick the main ones.
      section.append(
        el(
          'details',
          { class: 'condition-scores' },
          el('summary', {}, `Every score per condition (summary.json): ${keys.length} scores`),
          table(
            [
              { key: 'score', label: 'score' },
              ...run.conditions.map((condition) => ({ key: condition, label: condition })),
            ],
            keys.map((key) => {
              const row = { score: key };
              for (const s of run.conditionScores.filter((s) => s.key === key)) row[s.condition] = s.value;
              return row;
            }),
            { class: 'condition-scores' },
          ),
        ),
      );
    }
    return section;
  }

  function uncertainty(run) {
    const section = el(
      'section',
      { class: 'run' },
      el(
        'h3',
        {},
        'Means over scored steps with 95% bootstrap intervals over tasks and repeats (n: trials or pairs; an interval only where n ≥ 2)',
      ),
    );
    const keys = run.scoreKeys.filter((key) => run.stats.some((stat) => stat.key === key));
    section.append(
      table(
        [
          { key: 'score', label: 'score' },
          ...run.conditions.map((condition) => ({ key: condition, label: condition })),
        ],
        keys.map((key) => {
          const row = { score: key };
          for (const condition of run.conditions)
            row[condition] = interval(run.stats.find((s) => s.key === key && s.condition === condition));
          return row;
        }),
        { class: 'stats' },
      ),
    );
    if (run.paired.length > 0) {
      const baseline = run.paired[0].baseline;
      const others = run.conditions.filter((condition) => condition !== baseline);
      section.append(el('h3', {}, `Paired differences against ${baseline} (same task, same repeat)`));
      section.append(
        table(
          [
            { key: 'score', label: 'score' },
            ...others.map((condition) => ({ key: condition, label: `${condition} − baseline` })),
          ],
          [...new Set(run.paired.map((p) => p.key))].map((key) => {
            const row = { score: key };
            for (const condition of others)
              row[condition] = interval(run.paired.find((p) => p.key === key && p.condition === condition));
            return row;
          }),
          { class: 'paired' },
        ),
      );
    }
    return section;
  }

  function benchmarkTables(run) {
    const section = el('section', { class: 'run' });
    for (const figure of run.figures) {
      const id = `${figure.reporter}.${figure.id}`;
      if (figure.kind === 'table') {
        section.append(
          el('h3', {}, figure.title),
          table(figure.columns, figure.rows, { class: 'figure-table', 'data-figure': id }),
        );
      } else {
        const drawn = figurePlot(figure);
        drawn.setAttribute('data-figure', id);
        section.append(drawn);
      }
      if (figure.note) section.append(el('p', { class: 'note' }, figure.note));
    }
    return section;
  }

  function stepPlots(run) {
    const section = el('section', { class: 'run plots' });
    for (const key of [...plottedKeys(run), 'cost.usd', 'time.seconds']) {
      const points = run.series.filter((point) => point.key === key);
      if (points.length > 0) section.append(seriesPlot(key, points));
    }
    return section;
  }

  function stepDetail(step, summary) {
    const scores = Object.entries(step.scores).map(([key, value]) => ({ key, value }));
    const details = el(
      'details',
      { class: 'step', 'data-step': step.id },
      el(
        'summary',
        {},
        `${step.index + 1}. ${step.id} — ${summary?.status ?? ''}, ${summary?.turns ?? 0} turn(s), ${duration(summary?.durationMs)}`,
      ),
    );
    const body = () => [
      el('h4', {}, 'Prompt'),
      el('pre', { class: 'prompt' }, step.prompt),
      el(
        'details',
        { class: 'trajectory' },
        el('summary', {}, `Trajectory (${step.trajectory.length} items)`),
        step.trajectory.map((item) =>
          el('div', { class: `item ${item.kind}` }, el('b', {}, item.title), el('pre', {}, item.text)),
        ),
      ),
      el('h4', {}, 'Diff'),
      el(
        'pre',
        { class: 'diff' },
        step.diff.split('\n').map((line) =>
          el(
            'span',
            {
              class: line.startsWith('+')
                ? 'add'
                : line.startsWith('-')
                  ? 'del'
                  : line.startsWith('@@')
                    ? 'hunk'
                    : '',
            },
            `${line}\n`,
          ),
        ),
      ),
      el('h4', {}, `Cases (${step.cases.filter((c) => c.passed).length}/${step.cases.length} passed)`),
      step.cases.length === 0
        ? el('p', {}, 'no cases')
        : el(
            'table',
            { class: 'cases' },
            el(
              'tbody',
              {},
              step.cases.map((found) =>
                el(
                  'tr',
                  { class: found.passed ? 'pass' : 'fail' },
                  el('td', {}, found.passed ? 'pass' : 'fail'),
                  el('td', {}, found.category),
                  el('td', {}, el('details', {}, el('summary', {}, found.id), el('pre', {}, found.output))),
                ),
              ),
            ),
          ),
      el('h4', {}, 'Scores'),
      table(
        [
          { key: 'key', label: 'score' },
          { key: 'value', label: 'value' },
        ],
        scores,
        { class: 'scores' },
      ),
    ];
    details.addEventListener('toggle', () => {
      if (details.open && details.children.length === 1) details.append(...body());
    });
    return details;
  }

  function timeline(trial) {
    const total = trial.steps.reduce((sum, step) => sum + step.durationMs, 0) || 1;
    return el(
      'div',
      { class: 'timeline' },
      trial.steps.map((step) =>
        el(
          'span',
          {
            class: `bar ${step.status === 'ok' ? 'ok' : 'bad'}`,
            style: `flex-grow:${Math.max(step.durationMs / total, 0.01)}`,
            title: `${step.index + 1}. ${step.id}: ${step.status}, ${step.turns} turn(s), ${duration(step.durationMs)}, $${step.costUsd.toFixed(3)}`,
          },
          `${step.index + 1}`,
        ),
      ),
    );
  }

  function trialView(trial) {
    const details = el(
      'details',
      { class: 'trial', 'data-trial': trial.id },
      el(
        'summary',
        {},
        `${trial.id} — ${trial.status}, ${trial.steps.length} steps, ${duration(trial.durationMs)}, $${trial.costUsd.toFixed(3)}`,
      ),
    );
    let filled = false;
    details.addEventListener('toggle', () => {
      if (!details.open || filled) return;
      filled = true;
      // A trial opened while the page is still reading the trials' blocks waits for them.
      if (document.readyState === 'loading') {
        filled = false;
        document.addEventListener('DOMContentLoaded', () => details.dispatchEvent(new Event('toggle')), {
          once: true,
        });
        return;
      }
      const block = document.getElementById(`trial-${trial.key}`);
      if (block) fillTrial(details, trial, JSON.parse(block.textContent));
      else if (data.live)
        // The viewer serves a trial's steps when it is opened, as they are now.
        fetch(`${data.live.base}trials/${encodeURIComponent(trial.id)}`)
          .then((response) => (response.ok ? response.json() : []))
          .then((steps) => fillTrial(details, trial, steps));
      else fillTrial(details, trial, []);
    });
    return details;
  }

  /** Keys of the steps a reader opened, kept over live updates. */
  const openSteps = new Set();

  function fillTrial(details, trial, steps) {
    details.append(timeline(trial));
    if (trial.error) details.append(el('p', { class: 'fault' }, trial.error));
    details.append(
      table(
        [
          { key: 'key', label: 'trial score' },
          { key: 'value', label: 'value' },
        ],
        Object.entries(trial.scores).map(([key, value]) => ({ key, value })),
        { class: 'scores' },
      ),
    );
    for (const step of steps) {
      const view = stepDetail(
        step,
        trial.steps.find((s) => s.index === step.index),
      );
      const key = `${trial.id}/${step.id}`;
      view.addEventListener('toggle', () => (view.open ? openSteps.add(key) : openSteps.delete(key)));
      details.append(view);
      if (openSteps.has(key)) view.open = true;
    }
  }

  function trialsSection(run) {
    const section = el('section', { class: 'run trials' });
    for (const trial of run.trials) section.append(trialView(trial));
    return section;
  }

  /** The same view for each run, side by side. */
  function row(title, view) {
    return el(
      'section',
      { class: 'view' },
      el('h2', {}, title),
      el('div', { class: `columns n${data.runs.length}` }, data.runs.map(view)),
    );
  }

  function render() {
    app.replaceChildren(
      row('Experiment', overview),
      row('Uncertainty', uncertainty),
      row('Benchmark tables', benchmarkTables),
      row('Scores over steps (mean, band: min–max over trials)', stepPlots),
      row('Trials', trialsSection),
    );
    if (data.deltas.length > 0) {
      const names = data.runs.map((run) => run.name);
      app.append(
        el(
          'section',
          { class: 'view' },
          el('h2', {}, `Runs compared: ${names.join(' vs ')}`),
          table(
            [
              { key: 'key', label: 'score' },
              { key: 'condition', label: 'condition' },
              ...names.map((name, index) => ({ key: `v${index}`, label: name })),
              { key: 'delta', label: 'Δ last − first' },
            ],
            data.deltas.map((d) => ({
              key: d.key,
              condition: d.condition,
              delta: d.delta,
              ...Object.fromEntries(d.values.map((v, i) => [`v${i}`, v])),
            })),
            { class: 'deltas' },
          ),
        ),
      );
    }
    Promise.all(plots.splice(0)).then(() => document.body.setAttribute('data-ready', 'true'));
  }

  render();
  window.longhaulReport = { render, data };

  // In `longhaul view`: each change to the run's events.jsonl brings the run's model anew; the
  // page redraws in place and keeps the trials and steps a reader opened.
  if (data.live) {
    let updates = 0;
    const source = new EventSource(`${data.live.base}events`);
    source.addEventListener('run', (message) => {
      const next = JSON.parse(message.data);
      const open = [...document.querySelectorAll('details.trial[open]')].map((d) => d.dataset.trial);
      data.runs = next.runs;
      data.deltas = next.deltas;
      render();
      for (const id of open) {
        const trial = document.querySelector(`details.trial[data-trial="${CSS.escape(id)}"]`);
        if (trial) trial.open = true;
      }
      updates += 1;
      document.body.setAttribute('data-updates', String(updates));
    });
  }
})();
