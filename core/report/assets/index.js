// The viewer's index of runs: a table sorted by the column whose header was clicked last and
// filtered by the controls above it. Text from the runs goes in through textContent only.
(() => {
  const runs = JSON.parse(document.getElementById('runs-data').textContent);
  const root = document.getElementById('runs');

  const { el } = window.longhaulDom;

  const errors = (run) => run.erroredTrials + run.erroredSteps;
  const best = (run) => Math.max(-Infinity, ...run.headline.map((h) => h.value ?? -Infinity));
  const columns = [
    { key: 'name', label: 'run', sort: (run) => run.name },
    { key: 'started', label: 'started (UTC)', sort: (run) => run.started ?? '' },
    { key: 'experiment', label: 'experiment', sort: (run) => run.experiment ?? '' },
    { key: 'status', label: 'status', sort: (run) => run.status },
    { key: 'conditions', label: 'conditions', sort: (run) => run.conditions.length },
    { key: 'trials', label: 'trials', sort: (run) => run.trials / (run.planned || 1) },
    { key: 'headline', label: 'headline', sort: best },
    { key: 'errors', label: 'errors', sort: errors },
  ];
  const state = { sort: 'started', descending: true, text: '', status: '', errorsOnly: false };

  function cell(run, key) {
    switch (key) {
      case 'name':
        return el('a', { href: `runs/${encodeURIComponent(run.name)}/` }, run.name);
      case 'started':
        return run.started ? run.started.replace('T', ' ').slice(0, 19) : '-';
      case 'experiment':
        return run.experiment ?? '-';
      case 'status':
        return el('span', { class: `status ${run.status}`, title: run.reason }, run.status);
      case 'conditions':
        return el(
          'ul',
          { class: 'plain' },
          run.conditions.map((c) => el('li', {}, c)),
        );
      case 'trials':
        // k of n: trials ended of those planned, and how many run now.
        return `${run.trials}${run.planned === null ? '' : ` of ${run.planned}`}${run.running ? ` (${run.running} running)` : ''}`;
      case 'headline':
        return run.headline.length === 0
          ? '-'
          : el(
              'ul',
              { class: 'plain' },
              run.headline.map((h) =>
                el(
                  'li',
                  {},
                  `${h.label} ${h.text}`,
                  el(
                    'span',
                    { class: 'dir' },
                    ` ${h.condition}${run.status === 'running' ? ' (so far)' : ''}`,
                  ),
                ),
              ),
            );
      case 'errors':
        return errors(run) === 0
          ? '0'
          : `${run.erroredSteps} step(s)${run.erroredTrials ? `, ${run.erroredTrials} trial(s)` : ''}`;
    }
  }

  function shown() {
    const text = state.text.toLowerCase();
    const column = columns.find((c) => c.key === state.sort);
    return runs
      .filter((run) => !state.errorsOnly || errors(run) > 0)
      .filter((run) => !state.status || run.status === state.status)
      .filter(
        (run) =>
          !text ||
          [run.name, run.experiment ?? '', ...run.conditions].some((value) =>
            value.toLowerCase().includes(text),
          ),
      )
      .sort((a, b) => {
        const [x, y] = [column.sort(a), column.sort(b)];
        const order = x < y ? -1 : x > y ? 1 : 0;
        return state.descending ? -order : order;
      });
  }

  const body = el('tbody');
  const count = el('span', { class: 'count' });
  const header = el(
    'tr',
    {},
    columns.map((column) =>
      el(
        'th',
        {
          'data-key': column.key,
          onclick: () => {
            state.descending = state.sort === column.key ? !state.descending : column.key !== 'name';
            state.sort = column.key;
            draw();
          },
        },
        column.label,
      ),
    ),
  );

  function draw() {
    const rows = shown();
    body.replaceChildren(
      ...rows.map((run) =>
        el(
          'tr',
          { 'data-run': run.name, 'data-status': run.status, 'data-errors': errors(run) },
          columns.map((column) =>
            el(
              'td',
              {
                'data-key': column.key,
                'data-value':
                  column.key === 'headline' && run.headline[0]?.value != null
                    ? run.headline[0].value
                    : undefined,
              },
              cell(run, column.key),
            ),
          ),
        ),
      ),
    );
    for (const th of header.children)
      th.setAttribute(
        'aria-sort',
        th.dataset.key === state.sort ? (state.descending ? 'descending' : 'ascending') : 'none',
      );
    count.textContent = `${rows.length} of ${runs.length} runs`;
  }

  const statuses = [...new Set(runs.map((run) => run.status))].sort();
  root.append(
    runs.length === 0
      ? el('p', {}, 'No runs yet.')
      : el(
          'div',
          {},
          el(
            'div',
            { class: 'filters' },
            el('input', {
              type: 'search',
              id: 'filter',
              placeholder: 'filter by run, experiment or condition',
              oninput: (event) => {
                state.text = event.target.value;
                draw();
              },
            }),
            el(
              'select',
              {
                id: 'status',
                onchange: (event) => {
                  state.status = event.target.value;
                  draw();
                },
              },
              el('option', { value: '' }, 'any status'),
              statuses.map((status) => el('option', { value: status }, status)),
            ),
            el(
              'label',
              {},
              el('input', {
                type: 'checkbox',
                id: 'errors-only',
                onchange: (event) => {
                  state.errorsOnly = event.target.checked;
                  draw();
                },
              }),
              ' only runs with errors',
            ),
            count,
          ),
          el('table', { class: 'runs' }, el('thead', {}, header), body),
        ),
  );
  draw();
  document.body.setAttribute('data-ready', 'true');
})();
