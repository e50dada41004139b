// The dashboard page: plain DOM (no framework, no build step), charts with uPlot. Everything a run wrote (model
// output, config values, file names) is put into the page as text (textContent), never as HTML.

const app = document.getElementById('app');
const COLORS = ['#0969da', '#cf222e', '#1a7f37', '#8250df', '#bf8700', '#0a7a8a', '#d1242f', '#57606a'];
/** Longest text shown at once; the rest behind a button. */
const SHOW_CHARS = 20000;

// ---------- small helpers ----------

/** An element with attributes and children (strings become text nodes). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'style') el.style.cssText = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Text as the page shows it: control characters (ANSI escapes) made visible. */
function visible(s) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  return String(s).replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) =>
    c === '\u001b' ? '␛' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** A block of model output (or any logged text): shown as text, long text cut with a button for the rest. */
function textBlock(s, cls = 'text') {
  const full = visible(s ?? '');
  const el = h('div', { class: cls });
  if (full.length <= SHOW_CHARS) {
    el.textContent = full;
    return el;
  }
  el.textContent = full.slice(0, SHOW_CHARS);
  const more = h(
    'button',
    {
      onclick: () => {
        el.textContent = full;
      },
    },
    `show all ${full.length.toLocaleString()} characters`,
  );
  return h('div', {}, el, more);
}

async function api(path) {
  const res = await fetch(path);
  const body = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) {
    const err = new Error(body.error ?? `HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return body;
}

const qs = (o) =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

function fmt(v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return v === null || v === undefined ? '' : String(v);
  if (Number.isInteger(v)) return v.toLocaleString();
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(3) : v.toFixed(4);
}

function age(s) {
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

function statusBadge(status) {
  return h('span', { class: `status status-${status}`, 'data-status': status }, status);
}

function errorBox(err) {
  if (err.status === 404) return h('div', { class: 'gone', 'data-gone': '1' }, `Gone: ${err.message}`);
  return h('div', { class: 'warn' }, String(err.message ?? err));
}

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path, query = ''] = raw.split('?');
  return { path, params: new URLSearchParams(query) };
}

function go(path, params = {}) {
  const q = qs(params);
  location.hash = `#${path}${q ? `?${q}` : ''}`;
}

/**
 * Steps and columns of a run's metrics, read from the server's binary form (a JSON header, then float64 arrays):
 * no JSON number parsing for 100,000 rows. Columns become plain arrays with null for missing values (uPlot's gaps).
 */
async function metricsOf(id, keys) {
  const res = await fetch(`/api/metrics.bin?${qs({ id, keys: keys.join(',') })}`);
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    const err = new Error(body.error ?? `HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  const buf = await res.arrayBuffer();
  const headLen = new DataView(buf).getUint32(0, true);
  const head = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 4, headLen)));
  const start = Math.ceil((4 + headLen) / 8) * 8;
  const n = head.rows;
  const all = new Float64Array(buf, start, n * (head.keys.length + 1));
  const columns = {};
  head.keys.forEach((k, j) => {
    const col = all.subarray((j + 1) * n, (j + 2) * n);
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = Number.isNaN(col[i]) ? null : col[i];
    columns[k] = out;
  });
  return { steps: Array.from(all.subarray(0, n)), columns };
}

// ---------- live events ----------

let stream;
function closeStream() {
  if (stream) stream.close();
  stream = undefined;
  document.getElementById('conn').textContent = '';
}

function openStream(ids, handlers) {
  closeStream();
  stream = new EventSource(`/api/events?${ids.map((id) => `id=${encodeURIComponent(id)}`).join('&')}`);
  const conn = document.getElementById('conn');
  stream.addEventListener('open', () => {
    conn.textContent = '● live';
  });
  const s = stream;
  stream.addEventListener('error', () => {
    conn.textContent = '○ reconnecting';
    // A refused subscription (the run folder is gone) closes the stream for good.
    if (s.readyState === EventSource.CLOSED) {
      conn.textContent = '○ closed';
      handlers.closed?.();
    }
  });
  for (const [ev, fn] of Object.entries(handlers)) {
    if (ev === 'closed') continue;
    stream.addEventListener(ev, (e) => fn(JSON.parse(e.data)));
  }
}

// ---------- runs list ----------

const runsState = { filter: '', sort: 'age', dir: 1, picked: new Set() };

async function viewRuns() {
  closeStream();
  const { root, runs } = await api('/api/runs');
  document.getElementById('root').textContent = root;
  const filter = h('input', {
    type: 'search',
    placeholder: 'filter: name, recipe, model, status',
    value: runsState.filter,
    id: 'runs-filter',
  });
  const table = h('table', { id: 'runs' });
  const cols = [
    ['id', 'run'],
    ['recipe', 'recipe'],
    ['model', 'model'],
    ['status', 'status'],
    ['step', 'step', 'num'],
    ['headline', 'headline metric', 'num'],
    ['age', 'age', 'num'],
  ];
  const compare = h('button', { id: 'overlay' }, 'overlay selected runs');
  const compareEvals = h('button', { id: 'compare-evals' }, 'compare two selected eval folders');
  const render = () => {
    const f = runsState.filter.toLowerCase();
    const rows = runs.filter((r) => `${r.id} ${r.recipe ?? ''} ${r.model ?? ''} ${r.status}`.toLowerCase().includes(f));
    const key = (r) =>
      runsState.sort === 'age'
        ? r.ageSeconds
        : runsState.sort === 'headline'
          ? (r.headline?.value ?? Number.NEGATIVE_INFINITY)
          : (r[runsState.sort] ?? '');
    rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * runsState.dir);
    table.replaceChildren(
      h(
        'tr',
        {},
        h('th', {}, ''),
        ...cols.map(([k, label, cls]) =>
          h(
            'th',
            {
              class: cls,
              onclick: () => {
                runsState.dir = runsState.sort === k ? -runsState.dir : 1;
                runsState.sort = k;
                render();
              },
            },
            label + (runsState.sort === k ? (runsState.dir > 0 ? ' ▲' : ' ▼') : ''),
          ),
        ),
      ),
      ...rows.map((r) =>
        h(
          'tr',
          { class: 'click', 'data-run': r.id, onclick: () => go(r.kind === 'eval' ? '/evals' : '/run', { id: r.id }) },
          h(
            'td',
            { onclick: (e) => e.stopPropagation() },
            h('input', {
              type: 'checkbox',
              checked: runsState.picked.has(r.id),
              onchange: (e) => (e.target.checked ? runsState.picked.add(r.id) : runsState.picked.delete(r.id)),
            }),
          ),
          h('td', {}, r.id, r.layout === 'upstream' ? h('span', { class: 'muted' }, ' (upstream layout)') : ''),
          h('td', {}, r.recipe ?? ''),
          h('td', {}, r.model ?? ''),
          h('td', {}, statusBadge(r.status)),
          h('td', { class: 'num' }, r.step ?? ''),
          h('td', { class: 'num' }, r.headline ? `${r.headline.key} = ${fmt(r.headline.value)}` : ''),
          h('td', { class: 'num' }, age(r.ageSeconds)),
        ),
      ),
    );
  };
  filter.addEventListener('input', () => {
    runsState.filter = filter.value;
    render();
  });
  compare.addEventListener('click', () => {
    const ids = [...runsState.picked];
    if (ids.length > 0) go('/run', { id: ids[0], overlay: ids.slice(1).join(',') });
  });
  compareEvals.addEventListener('click', () => {
    const ids = [...runsState.picked];
    if (ids.length === 2) go('/compare', { a: ids[0], b: ids[1] });
  });
  render();
  app.replaceChildren(
    h('h1', {}, 'Runs'),
    h(
      'div',
      { class: 'bar' },
      filter,
      compare,
      compareEvals,
      h('span', { class: 'muted' }, `${runs.length} folders; running = metrics written in the last 120 s`),
    ),
    table,
  );
}

// ---------- a run ----------

function tabs(id, on, entry) {
  const items = [
    ['/run', 'metrics'],
    ['/rollouts', 'rollouts'],
    ['/checkpoints', 'checkpoints'],
    ['/config', 'config'],
  ];
  if (entry?.hasEvals) items.push(['/evals', 'evals']);
  return h(
    'nav',
    { class: 'tabs' },
    items.map(([p, label]) => h('a', { href: `#${p}?${qs({ id })}`, class: on === label ? 'on' : '' }, label)),
  );
}

function runHeader(run) {
  const e = run.entry;
  return [
    h(
      'h1',
      {},
      e.id,
      ' ',
      h('span', { id: 'run-status' }, statusBadge(e.status)),
      e.layout === 'upstream' ? h('span', { class: 'muted' }, ' upstream layout') : '',
    ),
    h(
      'div',
      { class: 'muted' },
      [e.recipe && `recipe ${e.recipe}`, e.model && `model ${e.model}`].filter(Boolean).join(' · '),
      ' · ',
      h('span', { id: 'row-count' }, run.rowCount.toLocaleString()),
      ' metric rows',
    ),
    run.skipped > 0 || run.pendingBytes > 0
      ? h(
          'div',
          { class: 'warn', id: 'skipped' },
          `${run.skipped} malformed line(s) of metrics.jsonl skipped` +
            (run.pendingBytes > 0 ? `; the last line is incomplete (${run.pendingBytes} bytes, not shown)` : ''),
        )
      : '',
  ];
}

/** Exponential moving average with bias correction (as TensorBoard's smoothing), NaN gaps kept. */
function smooth(ys, w) {
  if (w <= 0) return ys;
  const out = new Array(ys.length);
  let last = 0;
  let n = 0;
  for (let i = 0; i < ys.length; i++) {
    const y = ys[i];
    if (y === null || Number.isNaN(y)) {
      out[i] = null;
      continue;
    }
    last = last * w + (1 - w) * y;
    n++;
    out[i] = last / (1 - w ** n);
  }
  return out;
}

const DEFAULT_KEYS = [
  'env/all/reward/total',
  'reward/total',
  'train_mean_nll',
  'loss',
  'test/env/all/reward/total',
  'entropy',
  'optim/lr',
  'kl_sample_train_v1',
];

async function viewRun(params) {
  const id = params.get('id');
  const overlay = (params.get('overlay') ?? '').split(',').filter(Boolean);
  const run = await api(`/api/run?${qs({ id })}`);
  const keys = run.metricKeys;
  const stored = params.get('keys');
  let chosen = stored
    ? stored.split(',').filter((k) => keys.includes(k))
    : DEFAULT_KEYS.filter((k) => keys.includes(k));
  if (chosen.length === 0)
    chosen = keys.filter((k) => !k.startsWith('progress/') && !k.startsWith('time/')).slice(0, 4);
  let smoothing = Number(params.get('smooth') ?? 0);
  const ids = [id, ...overlay.filter((o) => o !== id)];
  // Per run: steps and the columns of the chosen keys.
  const data = new Map();
  const load = async (rid) => data.set(rid, await metricsOf(rid, chosen));
  await Promise.all(ids.map(load));

  const charts = h('div', { class: 'charts', id: 'charts' });
  const plots = new Map();
  const build = () => {
    for (const p of plots.values()) p.destroy();
    plots.clear();
    charts.replaceChildren();
    for (const key of chosen) {
      const box = h('div', { class: 'chart', 'data-key': key }, h('h3', {}, key));
      charts.append(box);
      const series = [{ label: 'step' }];
      ids.forEach((rid, i) => {
        series.push({
          label: rid,
          stroke: COLORS[i % COLORS.length],
          width: 1.5,
          spanGaps: true,
          points: { show: false },
        });
      });
      const plot = new uPlot(
        {
          width: Math.max(420, box.clientWidth - 10),
          height: 220,
          series,
          scales: { x: { time: false } },
          legend: { live: true },
        },
        alignData(key),
        box,
      );
      plots.set(key, plot);
    }
  };
  // All runs' steps merged on one x axis; each run's values placed at its steps (null elsewhere).
  const alignData = (key) => {
    if (ids.length === 1) {
      // One run: its steps are the x axis as they are (no merge).
      const m = data.get(id);
      const col = m?.columns[key] ?? [];
      return [m?.steps ?? [], smoothing > 0 ? smooth(col, smoothing) : col];
    }
    const xs = new Set();
    for (const rid of ids) for (const s of data.get(rid)?.steps ?? []) xs.add(s);
    const x = [...xs].sort((a, b) => a - b);
    const pos = new Map(x.map((s, i) => [s, i]));
    const out = [x];
    for (const rid of ids) {
      const m = data.get(rid);
      const ys = new Array(x.length).fill(null);
      const col = m?.columns[key];
      if (col) {
        const sm = smooth(col, smoothing);
        m.steps.forEach((s, i) => {
          const v = sm[i];
          ys[pos.get(s)] = v === null || Number.isNaN(v) ? null : v;
        });
      }
      out.push(ys);
    }
    return out;
  };
  let pending = false;
  /** One redraw per frame however many rows arrive. */
  const scheduleRedraw = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      redraw();
    });
  };
  const redraw = () => {
    for (const [key, p] of plots) p.setData(alignData(key));
    const n = data.get(id)?.steps.length ?? 0;
    charts.dataset.points = String(n);
    const rc = document.getElementById('row-count');
    if (rc) rc.textContent = n.toLocaleString();
  };

  const keySearch = h('input', { type: 'search', placeholder: 'find a metric', id: 'key-search' });
  const keyList = h('div', { class: 'keys' });
  const renderKeys = () => {
    const f = keySearch.value.toLowerCase();
    keyList.replaceChildren(
      ...keys
        .filter((k) => k.toLowerCase().includes(f))
        .map((k) =>
          h(
            'label',
            { title: k },
            h('input', {
              type: 'checkbox',
              checked: chosen.includes(k),
              onchange: async (e) => {
                chosen = e.target.checked ? [...chosen, k] : chosen.filter((c) => c !== k);
                await Promise.all(ids.map(load));
                build();
              },
            }),
            k,
          ),
        ),
    );
  };
  keySearch.addEventListener('input', renderKeys);
  renderKeys();
  const smoothIn = h('input', { type: 'range', min: 0, max: 0.99, step: 0.01, value: smoothing, id: 'smoothing' });
  const smoothOut = h('span', {}, String(smoothing));
  smoothIn.addEventListener('input', () => {
    smoothing = Number(smoothIn.value);
    smoothOut.textContent = smoothing.toFixed(2);
    redraw();
  });
  const allRuns = (await api('/api/runs')).runs.filter((r) => r.id !== id && r.kind === 'run');
  const overlayPick = h(
    'select',
    {
      id: 'overlay-pick',
      onchange: (e) => {
        if (e.target.value) go('/run', { id, overlay: [...overlay, e.target.value].join(','), keys: chosen.join(',') });
      },
    },
    h('option', { value: '' }, 'overlay another run…'),
    allRuns.map((r) => h('option', { value: r.id }, r.id)),
  );
  const legend = h(
    'div',
    { class: 'bar' },
    ids.map((rid, i) =>
      h('span', {}, h('span', { class: 'legend-run', style: `background:${COLORS[i % COLORS.length]}` }), rid),
    ),
  );
  const goneBox = h('div', { id: 'gone' });
  const timing = timingView(id);
  app.replaceChildren(
    ...runHeader(run),
    goneBox,
    tabs(id, 'metrics', run.entry),
    h('div', { class: 'bar' }, keySearch, h('label', {}, 'smoothing ', smoothIn, smoothOut), overlayPick),
    keyList,
    legend,
    charts,
    timing.el,
  );
  build();
  redraw();
  await timing.refresh();
  openStream(ids, {
    metrics: ({ id: rid, rows }) => {
      const m = data.get(rid);
      if (!m) return;
      const have = new Set(m.steps.slice(-rows.length - 5));
      for (const row of rows) {
        if (have.has(row.step)) continue;
        m.steps.push(row.step);
        for (const k of chosen) {
          m.columns[k] ??= new Array(m.steps.length - 1).fill(null);
          m.columns[k].push(row[k] ?? null);
        }
        for (const k of Object.keys(row)) {
          if (k !== 'step' && !keys.includes(k)) {
            keys.push(k);
            keys.sort();
            renderKeys();
          }
        }
      }
      scheduleRedraw();
      if (rid === id) {
        document.getElementById('run-status')?.replaceChildren(statusBadge('running'));
        timing.refreshSoon();
      }
    },
    reset: async () => {
      await Promise.all(ids.map(load));
      redraw();
    },
    // Rows written between the page's fetch and its subscription were read by the server then: fetch them.
    hello: async ({ id: rid, rowCount }) => {
      if (data.get(rid)?.steps.length !== rowCount) {
        await load(rid);
        redraw();
      }
    },
    closed: async () => {
      for (const rid of ids) {
        try {
          await api(`/api/run?${qs({ id: rid })}`);
        } catch (err) {
          if (err.status === 404) {
            goneBox.replaceChildren(
              h('div', { class: 'gone', 'data-gone': '1' }, `Gone: the folder of ${rid} was deleted.`),
            );
          }
        }
      }
    },
    gone: ({ id: rid }) => {
      goneBox.replaceChildren(h('div', { class: 'gone', 'data-gone': '1' }, `Gone: the folder of ${rid} was deleted.`));
      if (rid === id) document.getElementById('run-status')?.replaceChildren(statusBadge('gone'));
    },
  });
}

/**
 * The run's time per step from its `timing_spans.jsonl`: one line per top-level span name (seconds per step) and a
 * table of each name's mean, total and share. Nothing when the run wrote no spans. `refreshSoon` re-reads it at most
 * once every 2 s (a live run's new steps).
 */
function timingView(id) {
  const el = h('div', { id: 'timing' });
  let plot = null;
  let timer = null;
  const refresh = async () => {
    const t = await api(`/api/timing?${qs({ id })}`);
    plot?.destroy();
    plot = null;
    if (t.steps.length === 0) {
      el.replaceChildren();
      return;
    }
    const totals = t.names.map((n) => t.seconds[n].reduce((a, v) => a + (v ?? 0), 0));
    const all = totals.reduce((a, b) => a + b, 0);
    const order = t.names.map((_, i) => i).sort((a, b) => totals[b] - totals[a]);
    const box = h('div', { class: 'chart', id: 'timing-chart' });
    const table = h(
      'table',
      { id: 'timing-table' },
      h(
        'tr',
        {},
        ['span', 'steps', 'mean s', 'total s', 'share'].map((c) => h('th', {}, c)),
      ),
      order.map((i) => {
        const name = t.names[i];
        const n = t.seconds[name].filter((v) => v !== null).length;
        return h(
          'tr',
          { 'data-span': name },
          h('td', {}, name),
          h('td', { class: 'num' }, n),
          h('td', { class: 'num' }, fmt(totals[i] / Math.max(1, n))),
          h('td', { class: 'num' }, fmt(totals[i])),
          h('td', { class: 'num' }, `${((100 * totals[i]) / (all || 1)).toFixed(1)}%`),
        );
      }),
    );
    el.replaceChildren(
      h('h2', {}, 'Time per step'),
      h(
        'div',
        { class: 'muted' },
        `timing_spans.jsonl: ${t.steps.length.toLocaleString()} steps; top-level spans (a span inside another is not added again); spans may overlap when work runs concurrently` +
          (t.skipped ? ` · ${t.skipped} malformed line(s) skipped` : ''),
      ),
      box,
      table,
    );
    el.dataset.steps = String(t.steps.length);
    plot = new uPlot(
      {
        width: Math.max(420, box.clientWidth - 10),
        height: 220,
        series: [
          { label: 'step' },
          ...order.map((i, k) => ({
            label: `${t.names[i]} (s)`,
            stroke: COLORS[k % COLORS.length],
            width: 1.5,
            spanGaps: true,
            points: { show: t.steps.length < 50 },
          })),
        ],
        scales: { x: { time: false } },
        legend: { live: true },
      },
      [t.steps, ...order.map((i) => t.seconds[t.names[i]])],
      box,
    );
  };
  const refreshSoon = () => {
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      if (el.isConnected) refresh().catch(() => undefined);
    }, 2000);
  };
  return { el, refresh, refreshSoon };
}

async function viewConfig(params) {
  closeStream();
  const id = params.get('id');
  const run = await api(`/api/run?${qs({ id })}`);
  const rows = [];
  const flat = (o, prefix) => {
    if (o !== null && typeof o === 'object' && !Array.isArray(o)) {
      for (const [k, v] of Object.entries(o)) flat(v, prefix ? `${prefix}.${k}` : k);
    } else rows.push([prefix, typeof o === 'string' ? o : JSON.stringify(o)]);
  };
  flat(run.config ?? {}, '');
  app.replaceChildren(
    ...runHeader(run),
    tabs(id, 'config', run.entry),
    run.config === null
      ? h('p', { class: 'muted' }, 'no config.json')
      : h(
          'table',
          { id: 'config' },
          rows.map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', {}, textBlock(v)))),
        ),
  );
}

async function viewCheckpoints(params) {
  closeStream();
  const id = params.get('id');
  const run = await api(`/api/run?${qs({ id })}`);
  const list = run.checkpoints;
  const cmds = (c) => {
    const sampler = c.sampler_path;
    const state = c.state_path;
    const out = [];
    if (sampler) {
      out.push(`pnpm cookbook chat model=${sampler}`);
      out.push(`pnpm cookbook checkpoint export ${sampler} format=peft`);
      out.push(`pnpm cookbook serve   # then POST /v1/chat/completions with "model": "${sampler}"`);
    }
    if (state) out.push(`pnpm cookbook checkpoint info ${state}`);
    return out;
  };
  app.replaceChildren(
    ...runHeader(run),
    tabs(id, 'checkpoints', run.entry),
    list.length === 0
      ? h('p', { class: 'muted' }, 'no checkpoints.jsonl records')
      : h(
          'table',
          { id: 'checkpoints' },
          h(
            'tr',
            {},
            h('th', {}, 'name'),
            h('th', { class: 'num' }, 'step'),
            h('th', {}, 'paths'),
            h('th', {}, 'commands'),
          ),
          list.map((c) =>
            h(
              'tr',
              {},
              h('td', {}, String(c.name ?? ''), c.final ? h('strong', {}, ' final') : ''),
              h('td', { class: 'num' }, fmt(c.step ?? c.batch)),
              h('td', {}, textBlock([c.state_path, c.sampler_path].filter(Boolean).join('\n'))),
              h(
                'td',
                {},
                cmds(c).map((t) => h('code', { class: 'cmd' }, t)),
              ),
            ),
          ),
        ),
  );
}

// ---------- rollouts ----------

/** Background of a token by its trajectory's advantage: green above 0, red below, none at 0. */
function advantageColour(a) {
  if (typeof a !== 'number' || !Number.isFinite(a) || a === 0) return 'transparent';
  const alpha = (0.15 + 0.5 * Math.min(1, Math.abs(a))).toFixed(2);
  return a > 0 ? `rgba(26,127,55,${alpha})` : `rgba(207,34,46,${alpha})`;
}

/** Background of a token by its logprob: the less likely the sampler found it, the more orange. */
function logprobColour(lp) {
  if (typeof lp !== 'number' || !Number.isFinite(lp)) return 'transparent';
  const alpha = (0.7 * (1 - Math.exp(lp))).toFixed(2);
  return `rgba(191,135,0,${alpha})`;
}

/** A step's action tokens coloured by the trajectory's advantage or by each token's logprob. */
function tokens(step, advantage, by) {
  const pieces = Array.isArray(step.ac_token_texts) ? step.ac_token_texts : null;
  const lps = Array.isArray(step.ac_logprobs) ? step.ac_logprobs : null;
  if (!pieces) return null;
  const box = h('div', { class: 'text tokens' });
  pieces.forEach((p, i) => {
    const lp = lps?.[i];
    const bg = by === 'logprob' ? logprobColour(lp) : advantageColour(advantage);
    box.append(
      h(
        'span',
        {
          class: 'tok',
          style: `background:${bg}`,
          title: `token ${i}${lp === undefined ? '' : `, logprob ${fmt(lp)}`}`,
        },
        visible(p),
      ),
    );
  });
  return box;
}

/** A tool call's arguments as text: pretty JSON when they parse, else as logged. */
function argumentsText(call) {
  const args = call.function?.arguments ?? call.arguments;
  if (typeof args !== 'string') return JSON.stringify(args ?? {}, null, 2);
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/**
 * One message of a conversation (upstream's message shape) as turns: its text (thinking apart, images named), then each
 * tool call as a turn of its own (name, id, arguments); a `tool` message is a tool result. All text, no markup.
 */
function messageView(m) {
  const role = typeof m.role === 'string' ? m.role : 'message';
  const parts = Array.isArray(m.content) ? m.content : [m.content];
  const blocks = [];
  let text = '';
  for (const p of parts) {
    if (typeof p === 'string') text += p;
    else if (p?.type === 'text') text += p.text ?? '';
    else if (p?.type === 'thinking')
      blocks.push(h('div', { class: 'thinking' }, h('div', { class: 'who' }, 'thinking'), textBlock(p.thinking)));
    else if (p?.type === 'image') text += typeof p.image === 'string' ? `[image ${p.image}]` : '[image]';
    else if (p !== undefined && p !== null) text += JSON.stringify(p);
  }
  const isResult = role === 'tool';
  const who = isResult
    ? `tool result${m.name ? ` · ${m.name}` : ''}${m.tool_call_id ? ` · for ${m.tool_call_id}` : ''}`
    : `${role}${m.name ? ` · ${m.name}` : ''}`;
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  const unparsed = Array.isArray(m.unparsed_tool_calls) ? m.unparsed_tool_calls : [];
  return [
    h(
      'div',
      { class: `turn role-${role.replace(/[^a-z]/g, '')}${isResult ? ' tool-result' : ''}` },
      h('div', { class: 'who' }, who),
      blocks,
      text !== '' || (calls.length === 0 && blocks.length === 0) ? textBlock(text) : '',
    ),
    calls.map((c) =>
      h(
        'div',
        { class: 'turn tool-call' },
        h(
          'div',
          { class: 'who' },
          'tool call · ',
          h('span', { class: 'tool-name' }, String(c.function?.name ?? c.name ?? '?')),
          c.id ? ` · ${c.id}` : '',
        ),
        textBlock(argumentsText(c), 'text tool-args'),
      ),
    ),
    unparsed.map((c) =>
      h(
        'div',
        { class: 'turn tool-call unparsed' },
        h('div', { class: 'who' }, `tool call not understood: ${c.error ?? ''}`),
        textBlock(String(c.raw_text ?? '')),
      ),
    ),
  ];
}

function trajectoryView(rec, by) {
  if (rec === null) return h('div', { class: 'warn' }, 'this line is too long or not JSON; not shown');
  const steps = Array.isArray(rec.steps) ? rec.steps : [];
  const head = h(
    'div',
    { class: 'muted' },
    `iteration ${rec.iteration} · group ${rec.group_idx} · trajectory ${rec.traj_idx} · total reward ${fmt(rec.total_reward)}` +
      (rec.advantage === undefined ? '' : ` · advantage ${fmt(rec.advantage)}`) +
      (rec.tags?.length ? ` · ${rec.tags.join(', ')}` : '') +
      (rec.truncation ? ` · truncated: ${rec.truncation}` : ''),
  );
  const turns = [];
  if (Array.isArray(rec.messages)) {
    const shown = rec.messages.length;
    turns.push(
      h(
        'div',
        { class: 'conversation' },
        h(
          'h3',
          {},
          'Turns',
          typeof rec.messages_total === 'number' && rec.messages_total > shown
            ? ` (${shown} of ${rec.messages_total} messages logged: the first and the last ones)`
            : '',
        ),
        rec.messages.map(messageView),
      ),
      h('h3', {}, 'Steps'),
    );
  }
  steps.forEach((s, i) => {
    const parts = [];
    if (typeof s.ob_text === 'string')
      parts.push(
        h('div', { class: 'turn role-user' }, h('div', { class: 'who' }, 'observation'), textBlock(s.ob_text)),
      );
    const tok = tokens(s, s.advantage ?? rec.advantage, by);
    if (tok) parts.push(h('div', { class: 'turn role-assistant' }, h('div', { class: 'who' }, 'action (tokens)'), tok));
    else if (typeof s.ac_text === 'string')
      parts.push(
        h('div', { class: 'turn role-assistant' }, h('div', { class: 'who' }, 'action'), textBlock(s.ac_text)),
      );
    const logs = s.logs && Object.keys(s.logs).length ? s.logs : null;
    turns.push(
      h(
        'div',
        { class: 'turn' },
        h(
          'div',
          { class: 'who' },
          `step ${s.step_idx ?? i} · obs ${s.ob_len} tokens · action ${s.ac_len} tokens · reward ${fmt(s.reward)}${s.episode_done ? ' · done' : ''}`,
        ),
        parts,
        logs
          ? h(
              'table',
              {},
              Object.entries(logs).map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', {}, textBlock(String(v))))),
            )
          : '',
        s.metrics && Object.keys(s.metrics).length ? textBlock(JSON.stringify(s.metrics)) : '',
      ),
    );
  });
  return h('div', { class: 'trajectory' }, head, turns);
}

async function viewRollouts(params) {
  closeStream();
  const id = params.get('id');
  const run = await api(`/api/run?${qs({ id })}`);
  const f = {
    step_min: params.get('step_min') ?? '',
    step_max: params.get('step_max') ?? '',
    reward_min: params.get('reward_min') ?? '',
    reward_max: params.get('reward_max') ?? '',
    env: params.get('env') ?? '',
    truncation: params.get('truncation') ?? '',
  };
  const by = params.get('by') ?? 'advantage';
  const sp = new URLSearchParams({ id });
  for (const k of ['step_min', 'step_max', 'reward_min', 'reward_max']) if (f[k] !== '') sp.set(k, f[k]);
  for (const k of ['env', 'truncation']) if (f[k] !== '') sp.set(k, f[k] === '(none)' ? '' : f[k]);
  const res = await api(`/api/rollouts?${sp}`);
  const apply = () => {
    const p = { id, by };
    for (const el of form.querySelectorAll('[name]')) if (el.value !== '') p[el.name] = el.value;
    go('/rollouts', p);
  };
  const num = (name, label) => h('label', {}, label, h('input', { type: 'number', step: 'any', name, value: f[name] }));
  const pick = (name, label, values) =>
    h(
      'label',
      {},
      label,
      h(
        'select',
        { name },
        h('option', { value: '' }, 'all'),
        values.map((v) =>
          h(
            'option',
            { value: v === '' ? '(none)' : v, selected: f[name] === (v === '' ? '(none)' : v) },
            v === '' ? '(none)' : v,
          ),
        ),
      ),
    );
  const form = h(
    'form',
    {
      class: 'bar',
      id: 'rollout-filter',
      onsubmit: (e) => {
        e.preventDefault();
        apply();
      },
    },
    num('step_min', 'step ≥'),
    num('step_max', 'step ≤'),
    num('reward_min', 'reward ≥'),
    num('reward_max', 'reward ≤'),
    pick('env', 'env', res.facets.envs),
    pick('truncation', 'truncation', res.facets.truncations),
    h('button', { type: 'submit' }, 'filter'),
  );
  const detail = h('div', { class: 'panel', id: 'rollout-detail' }, h('p', { class: 'muted' }, 'pick a rollout'));
  const byPick = h(
    'select',
    { id: 'colour-by', onchange: (e) => go('/rollouts', { ...Object.fromEntries(params), by: e.target.value }) },
    ['advantage', 'logprob'].map((v) => h('option', { value: v, selected: by === v }, `colour tokens by ${v}`)),
  );
  const table = h(
    'table',
    { id: 'rollouts' },
    h(
      'tr',
      {},
      ['step', 'split', 'group', 'traj', 'reward', 'env', 'truncation', 'turns'].map((c) => h('th', {}, c)),
    ),
    res.rows.map((r) =>
      h(
        'tr',
        {
          class: 'click',
          'data-n': r.n,
          onclick: async (e) => {
            for (const tr of table.querySelectorAll('tr.sel')) tr.classList.remove('sel');
            e.currentTarget.classList.add('sel');
            const d = await api(`/api/rollout?${qs({ id, n: r.n })}`);
            detail.replaceChildren(trajectoryView(d.record, by));
          },
        },
        h('td', { class: 'num' }, r.iteration),
        h('td', {}, r.split),
        h('td', { class: 'num' }, r.group),
        h('td', { class: 'num' }, r.traj),
        h('td', { class: 'num' }, fmt(r.reward)),
        h('td', {}, r.env),
        h('td', {}, r.truncation),
        h('td', { class: 'num' }, r.turns),
      ),
    ),
  );
  const its = res.facets.iterations;
  const stepA = h(
    'select',
    { id: 'step-a' },
    its.map((i) => h('option', { value: i }, i)),
  );
  const stepB = h(
    'select',
    { id: 'step-b' },
    its.map((i, j) => h('option', { value: i, selected: j === its.length - 1 }, i)),
  );
  const sideBySide = h('div', { class: 'split', id: 'side-by-side' });
  const showSide = async () => {
    const cols = [];
    for (const it of [stepA.value, stepB.value]) {
      const r = await api(`/api/rollouts?${qs({ id, step_min: it, step_max: it, limit: 4 })}`);
      const all = await api(`/api/rollouts?${qs({ id, step_min: it, step_max: it, limit: 1000 })}`);
      const rewards = all.rows.map((x) => x.reward).filter((x) => Number.isFinite(x));
      const mean = rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length);
      const logtree = await api(`/api/logtree?${qs({ id, iteration: it })}`);
      const col = h(
        'div',
        { class: 'panel' },
        h('h3', {}, `step ${it}`),
        h('div', { class: 'muted' }, `${all.matched} rollouts · mean reward ${fmt(mean)}`),
      );
      for (const lt of logtree.logtrees) {
        col.append(h('div', { class: 'muted' }, `${lt.file}: ${lt.conversations.length} logged conversation(s)`));
        for (const c of lt.conversations.slice(0, 2))
          col.append(h('div', { class: 'panel' }, (c.messages ?? []).map(messageView)));
      }
      for (const row of r.rows) {
        const d = await api(`/api/rollout?${qs({ id, n: row.n })}`);
        col.append(trajectoryView(d.record, by));
      }
      cols.push(col);
    }
    sideBySide.replaceChildren(...cols);
  };
  app.replaceChildren(
    ...runHeader(run),
    tabs(id, 'rollouts', run.entry),
    form,
    h(
      'div',
      { class: 'muted', id: 'rollout-count' },
      `${res.matched.toLocaleString()} of ${res.facets.total.toLocaleString()} rollouts match` +
        (res.skipped ? ` · ${res.skipped} malformed line(s) skipped` : '') +
        (res.matched > res.rows.length ? ` · showing the first ${res.rows.length}` : ''),
    ),
    h('div', { class: 'bar' }, byPick),
    h('div', { class: 'split' }, h('div', { class: 'panel', style: 'max-height:70vh' }, table), detail),
    h('h2', {}, 'Two steps side by side'),
    h(
      'div',
      { class: 'bar' },
      'step ',
      stepA,
      ' vs ',
      stepB,
      h('button', { id: 'show-side', onclick: showSide }, 'show'),
    ),
    sideBySide,
  );
}

// ---------- evals ----------

async function viewEvals(params) {
  closeStream();
  const id = params.get('id');
  const { benchmarks } = await api(`/api/evals?${qs({ id })}`);
  const ks = [...new Set(benchmarks.flatMap((b) => Object.keys(b.passAtK)))].sort(
    (a, b) => Number(a.slice(5)) - Number(b.slice(5)),
  );
  const examples = h('div', { id: 'eval-examples' });
  const showBench = async (name, only = '') => {
    const r = await api(`/api/eval-examples?${qs({ id, benchmark: name, only, limit: 200 })}`);
    const detail = h('div', { class: 'panel' }, h('p', { class: 'muted' }, 'pick an example'));
    examples.replaceChildren(
      h('h2', {}, name),
      h(
        'div',
        { class: 'bar' },
        ['', 'correct', 'wrong'].map((o) => h('button', { onclick: () => showBench(name, o) }, o || 'all')),
        h(
          'span',
          { class: 'muted' },
          `${r.total} example(s)${r.skipped ? `, ${r.skipped} malformed line(s) skipped` : ''}`,
        ),
      ),
      h(
        'div',
        { class: 'split' },
        h(
          'div',
          { class: 'panel', style: 'max-height:70vh' },
          h(
            'table',
            {},
            r.examples.map((e) =>
              h(
                'tr',
                {
                  class: 'click',
                  onclick: async () => {
                    const d = await api(`/api/eval-example?${qs({ id, benchmark: name, i: e.i })}`);
                    detail.replaceChildren(exampleView(d.record));
                  },
                },
                h('td', {}, e.key),
                h('td', { class: 'num' }, e.sample),
                h('td', { class: e.correct ? 'ok' : 'bad' }, e.correct ? '✓' : '✗'),
                h('td', {}, e.truncated ? 'truncated' : '', e.error ? ` error: ${e.error}` : ''),
              ),
            ),
          ),
        ),
        detail,
      ),
    );
  };
  app.replaceChildren(
    h('h1', {}, id, h('span', { class: 'muted' }, ' evals')),
    h(
      'table',
      { id: 'benchmarks' },
      h(
        'tr',
        {},
        ['benchmark', 'score', 'examples', 'correct', 'errors', 'truncated', ...ks].map((c) => h('th', {}, c)),
      ),
      benchmarks.map((b) =>
        h(
          'tr',
          { class: 'click', onclick: () => showBench(b.name) },
          h('td', {}, b.name),
          h('td', { class: 'num' }, fmt(b.score)),
          h('td', { class: 'num' }, fmt(b.numExamples)),
          h('td', { class: 'num' }, fmt(b.numCorrect)),
          h('td', { class: 'num' }, fmt(b.numErrors)),
          h('td', { class: 'num' }, fmt(b.numTruncated)),
          ks.map((k) => h('td', { class: 'num' }, fmt(b.passAtK[k]))),
        ),
      ),
    ),
    examples,
  );
}

function exampleView(rec) {
  if (rec === null || typeof rec !== 'object') return h('div', { class: 'warn' }, 'not readable');
  const parts = [];
  if (Array.isArray(rec.turns)) parts.push(...rec.turns.map(messageView));
  if (Array.isArray(rec.prompt)) parts.push(...rec.prompt.map(messageView));
  if (typeof rec.response === 'string') parts.push(messageView({ role: 'assistant', content: rec.response }));
  const rest = Object.fromEntries(Object.entries(rec).filter(([k]) => !['turns', 'prompt', 'response'].includes(k)));
  parts.push(textBlock(JSON.stringify(rest, null, 2), 'text muted'));
  return h('div', {}, parts);
}

async function viewCompare(params) {
  closeStream();
  const a = params.get('a');
  const b = params.get('b');
  const [ea, eb] = await Promise.all([api(`/api/evals?${qs({ id: a })}`), api(`/api/evals?${qs({ id: b })}`)]);
  const names = ea.benchmarks.map((x) => x.name).filter((n) => eb.benchmarks.some((y) => y.name === n));
  const bench = params.get('benchmark') ?? names[0] ?? '';
  const score = (list, n) => list.find((x) => x.name === n)?.score;
  const out = h('div', { id: 'compare' });
  if (bench) {
    const c = await api(`/api/eval-compare?${qs({ a, b, benchmark: bench })}`);
    const list = (title, items, cls) =>
      h(
        'div',
        { class: 'panel' },
        h('h3', { class: cls }, title),
        h(
          'table',
          {},
          items.map((x) => h('tr', {}, h('td', {}, x.key), h('td', { class: 'num' }, `${fmt(x.a)} → ${fmt(x.b)}`))),
        ),
      );
    out.append(
      h(
        'p',
        { id: 'compare-summary' },
        `${bench}: ${c.common} examples in both · ${c.fixedCount} fixed · ${c.brokenCount} broken · ${c.same} unchanged` +
          (c.onlyA || c.onlyB ? ` · ${c.onlyA} only in a, ${c.onlyB} only in b` : ''),
      ),
      h(
        'div',
        { class: 'split' },
        list(`fixed in b (${c.fixedCount})`, c.fixed, 'ok'),
        list(`broken in b (${c.brokenCount})`, c.broken, 'bad'),
      ),
    );
  }
  app.replaceChildren(
    h('h1', {}, 'Compare evals'),
    h('p', {}, 'a = ', a, ' · b = ', b),
    h(
      'table',
      { id: 'compare-scores' },
      h(
        'tr',
        {},
        h('th', {}, 'benchmark'),
        h('th', { class: 'num' }, 'a'),
        h('th', { class: 'num' }, 'b'),
        h('th', { class: 'num' }, 'b − a'),
      ),
      names.map((n) =>
        h(
          'tr',
          { class: n === bench ? 'click sel' : 'click', onclick: () => go('/compare', { a, b, benchmark: n }) },
          h('td', {}, n),
          h('td', { class: 'num' }, fmt(score(ea.benchmarks, n))),
          h('td', { class: 'num' }, fmt(score(eb.benchmarks, n))),
          h(
            'td',
            { class: 'num' },
            fmt((score(eb.benchmarks, n) ?? Number.NaN) - (score(ea.benchmarks, n) ?? Number.NaN)),
          ),
        ),
      ),
    ),
    out,
  );
}

// ---------- routing ----------

const routes = {
  '/': viewRuns,
  '/run': viewRun,
  '/config': viewConfig,
  '/checkpoints': viewCheckpoints,
  '/rollouts': viewRollouts,
  '/evals': viewEvals,
  '/compare': viewCompare,
};

async function route() {
  const { path, params } = parseHash();
  const view = routes[path] ?? viewRuns;
  try {
    await view(params);
    document.body.dataset.view = path;
    document.body.dataset.hash = location.hash;
  } catch (err) {
    closeStream();
    app.replaceChildren(h('p', {}, h('a', { href: '#/' }, '← runs')), errorBox(err));
  }
}

window.addEventListener('hashchange', route);
route();
