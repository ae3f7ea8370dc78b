// The report page: reads the data block, draws the tables, the plots (Vega-Lite through
// vega-embed) and the trials. Every text from the run goes in through textContent, never as HTML:
// prompts, diffs and trajectories are written by the agent under test.
(() => {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const app = document.getElementById('app');

  const { el } = window.longhaulDom;

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
                shown.node ?? shown.text ?? formatCell(shown.value, column.format, column.digits),
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

  // A step axis stays readable at 60 steps: whole numbers, thinned to what fits.
  const stepAxis = { tickMinStep: 1, format: 'd', labelOverlap: true, labelFlush: true };
  // Ordinal axes (phases, bins) drop labels that would overlap.
  const ordinalAxis = { labelOverlap: 'parity', labelAngle: 0, labelLimit: 90 };

  /** What a plot over steps has on its x axis, and what its lines are, by the run's series mode. */
  const seriesAxis = {
    step: { title: 'step', caption: 'mean over tasks and repeats at each step (every task has these steps)' },
    progress: {
      title: "share of the task's steps done",
      caption: 'one line per task (tasks have different numbers of steps), over the share of its steps done',
    },
  };

  /**
   * A score over steps: the mean line with the spread (min–max over trials) as a band; one line
   * per value of `colorField` (the condition, or the run and condition when runs are overlaid),
   * dashed per run, and one per task where tasks differ in length.
   */
  function seriesPlot(title, points, mode, colorField = 'condition', dashField) {
    const axis = seriesAxis[mode] ?? seriesAxis.step;
    const x = {
      field: 'x',
      type: 'quantitative',
      title: axis.title,
      axis: mode === 'progress' ? { format: '.0%', labelOverlap: true } : stepAxis,
      scale: { nice: false },
    };
    const color = {
      field: colorField,
      type: 'nominal',
      // Solid swatches: the band's pale one would name nothing legibly.
      legend: { orient: 'bottom', direction: 'vertical', labelLimit: 0, title: null, symbolOpacity: 1 },
    };
    const shared = { x, color };
    if (dashField) shared.strokeDash = { field: dashField, type: 'nominal', legend: null };
    if (mode === 'progress') shared.detail = { field: 'task', type: 'nominal' };
    return plot(title, {
      data: { values: points },
      layer: [
        // The band only where lines are means over several trials of one group.
        ...(mode === 'progress'
          ? []
          : [
              {
                mark: { type: 'area', opacity: 0.15 },
                encoding: {
                  ...shared,
                  y: { field: 'low', type: 'quantitative', title },
                  y2: { field: 'high' },
                },
              },
            ]),
        {
          mark: { type: 'line', point: true },
          encoding: {
            ...shared,
            y: { field: 'mean', type: 'quantitative', title },
            tooltip: [
              { field: colorField },
              ...(mode === 'progress' ? [{ field: 'task' }] : []),
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

  /**
   * A plugin's plot figure: lines (with a band), bars or points (grouped by colour, with error bars
   * from the band), or a heatmap (`rect`, filled by `fill`, each cell labelled with its value).
   */
  function figurePlot(figure) {
    const xType = figure.x.type ?? 'quantitative';
    const x = {
      field: figure.x.field,
      title: figure.x.title,
      type: xType,
      axis: xType === 'quantitative' ? { labelOverlap: true } : ordinalAxis,
    };
    const y = { field: figure.y.field, title: figure.y.title, type: figure.y.type ?? 'quantitative' };
    if (figure.mark === 'rect' && figure.fill) {
      const fill = {
        field: figure.fill.field,
        title: figure.fill.title,
        type: figure.fill.type ?? 'quantitative',
      };
      return plot(figure.title, {
        data: { values: figure.data },
        height: { step: 22 },
        encoding: { x: { ...x, axis: { labelAngle: -30, labelLimit: 160 } }, y },
        layer: [
          { mark: 'rect', encoding: { color: { ...fill, scale: { scheme: 'blues' } } } },
          {
            mark: { type: 'text', fontSize: 11 },
            encoding: {
              text: { field: fill.field, format: '.2~f' },
              // Dark text on light cells, light on dark: readable at every value.
              color: { condition: { test: `datum['${fill.field}'] > 0.5`, value: '#fff' }, value: '#1d2330' },
            },
          },
        ],
      });
    }
    const color = figure.color
      ? {
          field: figure.color.field,
          title: figure.color.title,
          type: 'nominal',
          legend: { orient: 'bottom', direction: 'vertical', labelLimit: 0 },
        }
      : undefined;
    // Bars of several series side by side at each x, their error bars on them.
    const offset =
      figure.color && xType !== 'quantitative' && figure.mark !== 'line'
        ? { xOffset: { field: figure.color.field } }
        : {};
    const layer = [
      {
        mark: figure.mark === 'line' ? { type: 'line', point: true } : { type: figure.mark },
        encoding: { x, y, color, ...offset },
      },
    ];
    if (figure.band && figure.mark === 'line') {
      layer.unshift({
        mark: { type: 'area', opacity: 0.2 },
        encoding: {
          x,
          y: { field: figure.band.low, type: 'quantitative' },
          y2: { field: figure.band.high },
          color,
        },
      });
    } else if (figure.band) {
      layer.push({
        mark: { type: 'rule', color: '#1d2330' },
        encoding: {
          x,
          y: { field: figure.band.low, type: 'quantitative' },
          y2: { field: figure.band.high },
          ...offset,
        },
      });
    }
    return plot(figure.title, { data: { values: figure.data }, layer });
  }

  // An interval only where two or more values stand behind the mean (the model leaves low and
  // high null otherwise); the n is always shown, and the steps left out for want of a value.
  const interval = (stat) =>
    stat
      ? {
          text: `${
            stat.low === null || stat.high === null
              ? `${formatCell(stat.mean)} n=${stat.n}`
              : `${formatCell(stat.mean)} [${formatCell(stat.low)}, ${formatCell(stat.high)}] n=${stat.n}`
          }${stat.skipped ? `, ${stat.skipped} skipped` : ''}`,
          value: stat.mean,
        }
      : '–';

  const flagColumns = [
    { key: 'toolFailures', label: 'tools failed', format: 'number', digits: 0 },
    { key: 'tampered', label: 'tamper', format: 'number', digits: 0 },
  ];

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
          // Shown where measured: steps to look at whatever their score says.
          ...flagColumns.filter((column) => run.conditionRows.some((row) => row[column.key] != null)),
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
        'Means over scored steps with 95% bootstrap intervals over tasks and repeats (n: trials or pairs; an interval only where n ≥ 2; skipped: steps without a value, on either side for a difference, left out rather than taken as 0)',
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

  const figureId = (figure) => `${figure.reporter}.${figure.id}`;
  const isLead = (run, figure) => run.leads.includes(figureId(figure));

  /** A reporter's figure with its title and note; `extra` adds columns to a table's rows. */
  function figureView(figure, extra) {
    const id = figureId(figure);
    const parts = [];
    if (figure.kind === 'table') {
      const columns = extra ? [...figure.columns, ...extra.columns] : figure.columns;
      const rows = extra ? figure.rows.map((row) => ({ ...row, ...extra.cells(row) })) : figure.rows;
      parts.push(
        el('h3', {}, figure.title),
        table(columns, rows, { class: `figure-table${extra ? ' lead' : ''}`, 'data-figure': id }),
      );
    } else {
      const drawn = figurePlot(figure);
      drawn.setAttribute('data-figure', id);
      parts.push(drawn);
    }
    if (figure.note) parts.push(el('p', { class: 'note' }, figure.note));
    return parts;
  }

  const countColumns = [
    { key: 'n', label: 'n trials', format: 'number', digits: 0 },
    { key: 'scored', label: 'scored', format: 'number', digits: 0 },
    { key: 'errored', label: 'errored', format: 'number', digits: 0 },
    { key: 'cancelled', label: 'cancelled', format: 'number', digits: 0 },
  ];
  const countCells = (counts) =>
    counts
      ? {
          n: counts.trials,
          scored: { text: `${counts.scored}/${counts.steps}`, value: counts.scored },
          errored:
            counts.erroredTrials > 0
              ? { text: `${counts.errored} (${counts.erroredTrials} trials)`, value: counts.errored }
              : counts.errored,
          cancelled: counts.cancelled,
        }
      : {};

  /**
   * What a run's report opens with: the figures its benchmark leads with, each row of a condition
   * beside the trials and steps it rests on and the errors among them.
   */
  function headline(run) {
    const section = el(
      'section',
      { class: 'run headline', 'data-run': run.name },
      el('h3', { class: 'run-name' }, run.name),
    );
    if (run.state && run.state.status !== 'finished')
      section.append(
        el(
          'p',
          { class: `run-state status ${run.state.status}`, 'data-status': run.state.status },
          `${run.state.status}${run.state.reason ? ` (${run.state.reason})` : ''}: ${run.state.ended}${
            run.state.planned === undefined ? '' : ` of ${run.state.planned}`
          } trials ended${run.state.running ? `, ${run.state.running} running` : ''}${
            run.state.status === 'failed' ? '' : '; the figures are of the trials so far'
          }${run.state.status === 'interrupted' ? '; `longhaul resume` finishes it' : ''}`,
        ),
      );
    const counts = new Map(run.counts.map((row) => [row.condition, row]));
    let keyed = false;
    let counted = false;
    for (const figure of run.figures.filter((figure) => isLead(run, figure))) {
      const first = figure.kind === 'table' ? figure.columns[0]?.key : undefined;
      // A table that counts its errors already (the summary's) is shown as it is.
      const ownCounts =
        figure.kind === 'table' && figure.columns.some((column) => column.label === 'errored');
      counted ||= ownCounts;
      const byCondition =
        first !== undefined && !ownCounts && figure.rows.some((row) => counts.has(row[first]));
      keyed ||= byCondition || ownCounts;
      section.append(
        ...figureView(
          figure,
          byCondition
            ? { columns: countColumns, cells: (row) => countCells(counts.get(row[first])) }
            : undefined,
        ),
      );
    }
    if (!keyed) {
      section.append(
        el('h3', {}, 'Trials and steps per condition'),
        table(
          [{ key: 'condition', label: 'condition' }, ...countColumns],
          run.counts.map((row) => ({ condition: row.condition, ...countCells(row) })),
          { class: 'counts' },
        ),
      );
    }
    // A table that counts its own errors carries this legend as its note already.
    if (!counted) section.append(el('p', { class: 'legend' }, run.legend));
    return section;
  }

  /** The reporters' tables that do not lead; they sit, collapsed, with the per-score tables. */
  function benchmarkTables(run) {
    const section = el('section', { class: 'run' });
    for (const figure of run.figures)
      if (figure.kind === 'table' && !isLead(run, figure) && !figure.section)
        section.append(...figureView(figure));
    return section;
  }

  /** The benchmark sections the runs' plugins contribute (IDE-Bench, …), in the order they come. */
  const sectionNames = () => [
    ...new Set(
      data.runs.flatMap((run) =>
        run.figures.filter((f) => f.section && !isLead(run, f)).map((f) => f.section),
      ),
    ),
  ];

  /** One benchmark's section of a run: its figures, tables and plots, as its plugins give them. */
  function benchmarkSection(name) {
    return (run) => {
      const section = el('section', { class: 'run benchmark', 'data-run': run.name, 'data-section': name });
      // The plugin whose figure leads comes first in its section too (pass@k before tool usage).
      const leading = new Set(run.figures.filter((f) => isLead(run, f)).map((f) => f.reporter));
      const own = run.figures.filter((figure) => figure.section === name && !isLead(run, figure));
      const figures = [
        ...own.filter((f) => leading.has(f.reporter)),
        ...own.filter((f) => !leading.has(f.reporter)),
      ];
      if (figures.length === 0) return section;
      if (data.runs.length > 1) section.append(el('h3', { class: 'run-name' }, run.name));
      for (const figure of figures) section.append(...figureView(figure));
      return section;
    };
  }

  /** Per step: the run's plotted scores, then cost and time where a step has a turn of its own. */
  function stepPlots(run) {
    const section = el('section', { class: 'run' });
    const plotted = el('div', { class: 'plots' });
    if (run.seriesMode !== 'none') {
      for (const key of run.plotKeys) {
        const points = run.series.filter((point) => point.key === key);
        if (points.length === 0) continue;
        const drawn = seriesPlot(key, points, run.seriesMode);
        drawn.setAttribute('data-score', key);
        plotted.append(drawn);
      }
      if (plotted.childElementCount > 0)
        section.append(el('p', { class: 'note series-mode' }, seriesAxis[run.seriesMode].caption));
    }
    for (const figure of run.figures)
      if (figure.kind === 'plot' && !isLead(run, figure) && !figure.section)
        plotted.append(...figureView(figure));
    if (plotted.childElementCount > 0) section.append(plotted);
    return section;
  }

  /**
   * One plot per score with every run on one scale: colour per run and condition, dashed per run,
   * so two runs with the same values still show both lines.
   */
  function overlaidPlots() {
    const section = el('section', { class: 'overlaid' });
    const plotted = el('div', { class: 'plots' });
    const modes = new Set(data.runs.map((run) => run.seriesMode).filter((mode) => mode !== 'none'));
    if (modes.size === 0) return section;
    const mode = modes.size === 1 ? [...modes][0] : 'progress';
    section.append(el('p', { class: 'note series-mode' }, seriesAxis[mode].caption));
    const keys = [...new Set(data.runs.flatMap((run) => run.plotKeys))];
    for (const key of keys) {
      const points = data.runs.flatMap((run) => {
        const longest = Math.max(1, ...Object.values(run.stepsPerTask));
        return run.series
          .filter((point) => point.key === key)
          .map((point) => ({
            ...point,
            // A run averaged per step beside runs drawn per task: its steps as shares of the task.
            x: mode === 'progress' && point.task === undefined ? point.step / longest : point.x,
            run: run.name,
            series: `${run.name} · ${point.condition}`,
          }));
      });
      if (points.length === 0) continue;
      const drawn = seriesPlot(key, points, mode, 'series', 'run');
      drawn.setAttribute('data-score', key);
      plotted.append(drawn);
    }
    section.append(plotted);
    return section;
  }

  /** A difference with its interval and n, signed: `+0.222 [0.1, 0.3] n=4`. */
  function deltaCell(delta) {
    if (!delta) return '–';
    const signed = (value) => `${value > 0 ? '+' : ''}${formatCell(value)}`;
    const bounds =
      delta.low === null || delta.high === null ? '' : ` [${signed(delta.low)}, ${signed(delta.high)}]`;
    return {
      text: `${signed(delta.mean)}${bounds} n=${delta.n}${delta.skipped ? `, ${delta.skipped} skipped` : ''}`,
      value: delta.mean,
    };
  }

  /**
   * What changed between the runs, before anything else: the experiments' differences and how the
   * conditions were matched.
   */
  function changes(compared) {
    return el(
      'section',
      { class: 'view what-changed' },
      el('h2', {}, `What changed: ${compared.runs.join(' vs ')}`),
      el(
        'ul',
        { class: 'changed' },
        compared.changed.map((line) => el('li', {}, line)),
      ),
      el(
        'p',
        { class: 'note' },
        `Conditions matched by ${compared.matchedBy}: ${compared.groups.map((g) => g.label).join('; ') || 'none'}.${
          compared.unmatched.length > 0
            ? ` Not compared (no match in the other run): ${compared.unmatched.map((u) => `${u.condition} (${u.run})`).join(', ')}.`
            : ''
        }`,
      ),
    );
  }

  /**
   * The runs side by side per condition, never pooled: each score's mean over the task × repeat ×
   * step cells every run measured, and each later run's paired difference from the first with its
   * interval over tasks and repeats.
   */
  function comparison(compared) {
    const names = compared.runs;
    const runColumns = names.map((name, index) => ({ key: `v${index}`, label: name }));
    const deltaColumns = names
      .slice(1)
      .map((name, index) => ({ key: `d${index + 1}`, label: `Δ ${name} − ${names[0]}` }));
    const columns = [
      { key: 'group', label: 'condition' },
      { key: 'key', label: 'score' },
      { key: 'cells', label: 'cells', format: 'number', digits: 0 },
      { key: 'skipped', label: 'skipped', format: 'number', digits: 0 },
      ...runColumns,
      ...deltaColumns,
    ];
    const rowOf = (d) => ({
      group: d.group,
      key: d.key,
      cells: d.cells,
      skipped: d.skipped,
      ...Object.fromEntries(d.values.map((v, i) => [`v${i}`, v])),
      ...Object.fromEntries(d.deltas.map((delta, i) => [`d${i}`, deltaCell(delta)]).slice(1)),
    });
    const main = new Set([...data.runs.flatMap((run) => [run.solveKey, ...run.plotKeys])]);
    const headline = compared.rows.filter((d) => main.has(d.key));
    return el(
      'section',
      { class: 'view comparison' },
      el('h2', {}, `Runs compared per condition: ${names.join(' vs ')}`),
      el(
        'p',
        { class: 'note' },
        "Per matched condition, never pooled over conditions: each run's mean over the task × repeat × step cells every run measured; Δ: the paired difference from the first run with its 95% bootstrap interval over tasks and repeats and n (pairs of trials); skipped: cells left out because a run measured nothing there (not taken as 0).",
      ),
      table(columns, (headline.length > 0 ? headline : compared.rows).map(rowOf), { class: 'run-deltas' }),
      el(
        'details',
        { class: 'all-deltas' },
        el('summary', {}, `Every score per condition: ${compared.rows.length} rows`),
        table(columns, compared.rows.map(rowOf), { class: 'all-run-deltas' }),
      ),
      el(
        'details',
        { class: 'cell-deltas' },
        el('summary', {}, `Per condition, task and step: ${compared.cells.length} rows`),
        table(
          [
            { key: 'group', label: 'condition' },
            { key: 'key', label: 'score' },
            { key: 'task', label: 'task' },
            { key: 'step', label: 'step' },
            ...runColumns,
            { key: 'delta', label: `Δ ${names.at(-1)} − ${names[0]}` },
          ],
          compared.cells.map((d) => ({
            group: d.group,
            key: d.key,
            task: d.task,
            step: d.step,
            delta: d.delta,
            ...Object.fromEntries(d.values.map((v, i) => [`v${i}`, v])),
          })),
          { class: 'deltas' },
        ),
      ),
    );
  }

  /** A heading and a list of lines, or nothing when there are none. */
  function listing(title, lines, cls) {
    if (!lines?.length) return [];
    return [
      el('h4', {}, title),
      el(
        'ul',
        { class: cls },
        lines.map((line) => el('li', {}, line)),
      ),
    ];
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
        ...(summary?.flags ?? []).map((flag) => el('span', { class: 'flag' }, flag)),
      ),
    );
    const body = () => [
      el(
        'details',
        { class: 'trajectory', open: true },
        el('summary', {}, `Transcript (the prompt and ${step.trajectory.length} items)`),
        el('div', { class: 'transcript' }, transcript(step)),
      ),
      ...listing(
        'Tamper signals: what the agent changed in the machinery of judgment',
        step.signals,
        'signals',
      ),
      ...listing('Failed tool calls', step.toolFailures, 'tool-failures'),
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

  /** A text shown as it is when short, collapsed behind its first line when long. */
  function longText(text, cls) {
    const lines = text.split('\n');
    if (text.length <= 600 && lines.length <= 12) return el('pre', { class: cls }, text);
    const first = lines[0].slice(0, 120);
    return el(
      'details',
      { class: `long ${cls ?? ''}` },
      el(
        'summary',
        {},
        `${first}${first.length < text.length ? ' …' : ''} (${lines.length} lines, ${text.length} characters)`,
      ),
      el('pre', { class: cls }, text),
    );
  }

  /**
   * A step as a conversation, like a chat log: the prompt, the agent's text, each tool call with
   * its result beneath it, and the session's events as quiet lines between them.
   */
  function transcript(step) {
    const items = [
      el('div', { class: 'item message user prompt' }, el('b', {}, 'prompt'), longText(step.prompt)),
    ];
    for (const item of step.trajectory) {
      // Harnesses that log the prompt as the user's first message would show it twice.
      if (item.kind === 'message' && item.title === 'user' && item.text.trim() === step.prompt.trim())
        continue;
      if (item.kind.startsWith('tool-call')) {
        items.push(
          el(
            'div',
            { class: `item ${item.kind}` },
            el('b', {}, `tool call: ${item.title}`),
            longText(item.text, 'input'),
            item.result
              ? el(
                  'div',
                  { class: `tool-output${item.result.isError ? ' error' : ''}` },
                  el('b', {}, item.result.isError ? 'error' : 'result'),
                  longText(item.result.text, 'output'),
                )
              : el('p', { class: 'note' }, 'no result'),
          ),
        );
      } else if (item.kind === 'message') {
        items.push(
          el('div', { class: `item message ${item.title}` }, el('b', {}, item.title), longText(item.text)),
        );
      } else if (item.kind === 'reasoning') {
        items.push(
          el(
            'details',
            { class: 'item reasoning' },
            el('summary', {}, 'reasoning'),
            el('pre', {}, item.text),
          ),
        );
      } else {
        items.push(
          el(
            'div',
            { class: `item event ${item.kind}` },
            el('b', {}, item.title),
            item.text ? longText(item.text) : undefined,
          ),
        );
      }
    }
    return items;
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
            class: `bar tone-${step.tone ?? (step.status === 'ok' ? 'scored' : 'errored')}${step.flags?.length ? ' flagged' : ''}`,
            style: `flex-grow:${Math.max(step.durationMs / total, 0.01)}`,
            title: [
              `${step.index + 1}. ${step.id}: ${toneWords[step.tone] ?? step.status} (${step.status}), ${step.turns} turn(s), ${duration(step.durationMs)}, $${step.costUsd.toFixed(3)}`,
              ...(step.flags ?? []),
            ].join('\n'),
          },
          `${step.index + 1}`,
        ),
      ),
    );
  }

  /** A trial's steps to look at whatever their score says, counted in its summary line. */
  function flaggedNote(trial) {
    const flagged = trial.steps.filter((step) => step.flags?.length).length;
    return flagged > 0
      ? [el('span', { class: 'flag' }, `${flagged} step${flagged === 1 ? '' : 's'} flagged`)]
      : [];
  }

  const toneWords = {
    solved: 'solved',
    unsolved: 'not solved',
    partial: 'partly solved',
    scored: 'scored (no solve score)',
    errored: 'lost to a fault',
    cancelled: 'cancelled',
    running: 'running',
  };

  /** A trial's outcome in words: `solved 2/4 · 1 errored · 3 failed tool calls`. */
  function outcomeParts(trial) {
    const outcome = trial.outcome;
    if (!outcome) return [];
    const parts = [
      el(
        'span',
        { class: 'solved', 'data-solved': outcome.solved ?? '', 'data-steps': outcome.steps },
        outcome.solved === null ? `solved –/${outcome.steps}` : `solved ${outcome.solved}/${outcome.steps}`,
      ),
    ];
    if (outcome.errored > 0)
      parts.push(
        el(
          'span',
          { class: 'signal warn' },
          `${outcome.errored} errored (${Object.entries(outcome.errorClasses)
            .map(([name, count]) => `${count} ${name}`)
            .join(', ')})`,
        ),
      );
    if (outcome.cancelled > 0)
      parts.push(el('span', { class: 'signal warn' }, `${outcome.cancelled} cancelled`));
    for (const signal of outcome.signals)
      parts.push(
        el(
          'span',
          { class: `signal ${signal.tone}`, 'data-signal': signal.key },
          `${signal.value} ${signal.label}`,
        ),
      );
    return parts;
  }

  function trialView(trial) {
    const tone = trial.outcome?.tone ?? 'scored';
    const details = el(
      'details',
      { class: `trial tone-${tone}`, 'data-trial': trial.id, id: `trial-view-${trial.key}` },
      el(
        'summary',
        {},
        el('span', { class: `dot tone-${tone}`, title: toneWords[tone] }),
        ` ${trial.id} — `,
        ...outcomeParts(trial).flatMap((part) => [part, ' · ']),
        `${trial.status}, ${trial.steps.length} steps, ${duration(trial.durationMs)}, $${trial.costUsd.toFixed(3)}`,
        ...flaggedNote(trial),
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

  /**
   * Every trial at a glance: conditions × tasks, a chip per trial with its solved steps, coloured
   * by outcome; a click opens the trial below.
   */
  function glance(run) {
    const chip = (trial) =>
      el(
        'a',
        {
          class: `chip tone-${trial.outcome?.tone ?? 'scored'}`,
          href: `#trial-view-${trial.key}`,
          'data-trial': trial.id,
          title: `${trial.id}: ${toneWords[trial.outcome?.tone] ?? trial.status} (${trial.status})`,
          onclick: () => {
            const details = document.getElementById(`trial-view-${trial.key}`);
            if (details) details.open = true;
          },
        },
        `r${trial.repeat} `,
        ...outcomeParts(trial).flatMap((part, i) => (i === 0 ? [part] : [' ', part])),
      );
    return table(
      [{ key: 'condition', label: 'condition' }, ...run.tasks.map((task) => ({ key: task, label: task }))],
      run.conditions.map((condition) => {
        const cells = { condition };
        for (const task of run.tasks) {
          const own = run.trials.filter((t) => t.condition === condition && t.task === task);
          cells[task] = { text: own.length === 0 ? 'missing' : undefined, node: own.map(chip) };
        }
        return cells;
      }),
      { class: 'glance', 'data-run': run.name },
    );
  }

  function trialsSection(run) {
    const section = el('section', { class: 'run trials', 'data-run': run.name });
    if (data.runs.length > 1) section.append(el('h3', { class: 'run-name' }, run.name));
    section.append(glance(run), el('p', { class: 'legend' }, trialLegend));
    for (const trial of run.trials) section.append(trialView(trial));
    return section;
  }

  const trialLegend =
    "solved x/y: steps whose solve score is 1, of the task's steps (–: no step has a solve score); colour: green solved every step, amber some, red none, dark red a fault, grey cancelled or running, blue scored without a solve score; errored and cancelled steps and failed tool calls are counted beside, never as unsolved.";

  /** The same view for each run, side by side. */
  function row(title, view) {
    const views = data.runs.map(view);
    // Never an empty section: a heading with nothing under it says nothing.
    if (views.every((v) => !v || v.childElementCount === 0)) return undefined;
    return el(
      'section',
      { class: 'view' },
      el('h2', {}, title),
      el('div', { class: `columns n${data.runs.length}` }, views),
    );
  }

  function render() {
    const several = data.runs.length > 1;
    const sections = [];
    if (data.comparison) sections.push(changes(data.comparison));
    sections.push(row('Headline', headline));
    if (data.comparison) sections.push(comparison(data.comparison));
    for (const name of sectionNames()) sections.push(row(name, benchmarkSection(name)));
    const stepped = data.runs.some((run) => run.seriesMode !== 'none' && run.plotKeys.length > 0);
    if (several) {
      if (stepped)
        sections.push(
          el(
            'section',
            { class: 'view' },
            el('h2', {}, 'Scores over steps, runs overlaid (mean, band: min–max over trials)'),
            overlaidPlots(),
          ),
        );
      sections.push(
        row('Benchmark plots', (run) => {
          const section = el('section', { class: 'run plots' });
          for (const figure of run.figures)
            if (figure.kind === 'plot' && !isLead(run, figure) && !figure.section)
              section.append(...figureView(figure));
          return section;
        }),
      );
    } else sections.push(row('Scores over steps (mean, band: min–max over trials)', stepPlots));
    // Every score of every condition: there to look up, not to read first.
    sections.push(
      el(
        'details',
        { class: 'per-score' },
        el('summary', {}, 'Per-score tables: conditions, intervals, paired differences, benchmark tables'),
        row('Experiment', overview),
        row('Uncertainty', uncertainty),
        row('Benchmark tables', benchmarkTables),
      ),
      row('Trials', trialsSection),
    );
    // A live update redraws the page: what the reader opened stays open.
    const opened = app.querySelector('details.per-score')?.open;
    app.replaceChildren(...sections.filter(Boolean));
    if (opened) app.querySelector('details.per-score').open = true;
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
      data.comparison = next.comparison;
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
