/* Leaderboard dashboard: plain JavaScript, no build step, no dependencies.
 *
 * Talks to the API only through the Nginx in front of it: public reads under
 * config.apiBase ("/api"), admin writes under config.adminBase ("/admin-api"), where
 * Nginx asks for the admin password and adds the API key itself. The page never
 * sees the key. API contract: docs/API.md. */
(() => {
  'use strict';

  const DEFAULT_CONFIG = { apiBase: '/api', adminBase: '/admin-api', stage: '', apiUrl: '' };
  const DEFAULT_BOARD = 'global';
  const PERIOD_LABELS = { 'all-time': 'All-Time', daily: 'Today', weekly: 'This Week', monthly: 'This Month' };
  // What the page knows about the default board before GET /leaderboards answers (or if it cannot).
  const FALLBACK_BOARD = {
    board_id: DEFAULT_BOARD,
    name: 'Global',
    order: 'desc',
    periods: ['all-time', 'daily', 'weekly'].map((period) => ({ period, current: null, next_reset: null })),
  };
  const REFRESH_MS = 3000;
  const HISTORY_EVERY_TICKS = 10; // history refreshes every ~30 s while auto-refresh runs
  const TIMING_WINDOW = 20;
  const LOG_SIZE = 15;
  const CHART_SERIES = 5;
  const SNAPSHOT_LIMIT = 25;
  const HISTORY_LIMIT = 20;
  const AROUND_WINDOW = 3; // players shown above and below a looked-up player
  const BOARDS_MIN_AGE_MS = 15000; // GET /leaderboards at most this often when a period has rolled over

  const state = {
    config: { ...DEFAULT_CONFIG },
    board: DEFAULT_BOARD,
    period: 'all-time',
    boards: new Map([[DEFAULT_BOARD, FALLBACK_BOARD]]), // board_id -> board, in the API's order
    boardsLoaded: false,
    boardsFetchedAt: 0,
    boardsPromise: null,
    pendingView: null, // a linked board not listed yet (API down at start): opened once the list arrives
    limit: 25,
    paused: false,
    timer: null,
    boardController: null,
    boardSeq: 0,
    historySeq: 0,
    tick: 0,
    previous: new Map(), // player_id -> {rank, score} of the last render of this period
    renderedKey: '',
    leaders: {}, // "board|period" -> {id, name}
    currentIds: {}, // default board: alias -> concrete leaderboard_id seen from the API
    timings: [],
    admin: false,
    historyMode: 'score',
    history: [],
    leaderTimer: null,
    lookupSeq: 0,
    lookupId: '', // the player last looked up: the lookup follows the board and period picked
  };

  const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  const numberFormat = new Intl.NumberFormat('en-US');
  const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const tickFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
    month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit',
  });
  // Periods are UTC days, ISO weeks and months: their resets are shown in UTC.
  const utcFormat = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
  });

  // ---------------------------------------------------------------- small DOM helpers

  const $ = (selector, root = document) => root.querySelector(selector);
  const SVG_NS = 'http://www.w3.org/2000/svg';

  /** Element with attributes and children; text always goes in as text, never as HTML. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    setAttrs(el, attrs);
    appendAll(el, children);
    return el;
  }

  function s(tag, attrs, ...children) {
    const el = document.createElementNS(SVG_NS, tag);
    setAttrs(el, attrs);
    appendAll(el, children);
    return el;
  }

  function setAttrs(el, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === false || value === null || value === undefined) continue;
      if (key === 'class') el.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else if (key === 'text') el.textContent = value;
      else el.setAttribute(key, value === true ? '' : String(value));
    }
  }

  function appendAll(el, children) {
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  function setStatus(el, kind, message, ...extra) {
    el.dataset.kind = kind || '';
    el.replaceChildren();
    if (message) appendAll(el, [h('span', { class: 'status-text' }, message), ...extra]);
  }

  const fmt = (n) => (typeof n === 'number' ? numberFormat.format(n) : String(n ?? '–'));
  const fmtMs = (ms) => `${Math.round(ms)} ms`;

  function parseTime(value) {
    if (value === null || value === undefined) return null;
    if (typeof value === 'number') return new Date(value < 1e12 ? value * 1000 : value);
    const t = Date.parse(String(value).split('#')[0]); // tolerate a "#suffix" after the ISO time
    return Number.isNaN(t) ? null : new Date(t);
  }

  // ---------------------------------------------------------------- periods and board names

  function isoWeekId(date) {
    const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
    const day = d.getUTCDay() || 7;
    d.setUTCDate(d.getUTCDate() + 4 - day);
    const yearStart = new Date(Date.UTC(d.getUTCFullYear(), 0, 1));
    const week = Math.ceil(((d - yearStart) / 86400000 + 1) / 7);
    return `weekly-${d.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
  }

  /** The leaderboard_id a period alias stands for now: "daily-2026-11-30", "speedrun#weekly-2026-W49". */
  function currentId(alias, board = state.board) {
    const info = periodInfo(board, alias);
    if (!isDefault(board)) return `${board}#${(info && info.current) || alias}`;
    if (state.currentIds[alias]) return state.currentIds[alias];
    if (info && info.current) return info.current;
    const now = new Date();
    if (alias === 'daily') return `daily-${now.toISOString().slice(0, 10)}`;
    if (alias === 'weekly') return isoWeekId(now);
    return 'all-time';
  }

  const isDefault = (board = state.board) => board === DEFAULT_BOARD;
  const boardInfo = (board = state.board) => state.boards.get(board) || (isDefault(board) ? FALLBACK_BOARD : null);
  const boardName = (board = state.board) => (boardInfo(board) && boardInfo(board).name) || board;
  const boardPeriods = (board = state.board) => ((boardInfo(board) || FALLBACK_BOARD).periods || []).map((p) => p.period);
  const periodLabel = (period) => PERIOD_LABELS[period] || period;
  /** "All-Time" on the default board (as before there were others), "Speedrun · This Week" on another. */
  const viewLabel = (board = state.board, period = state.period) =>
    (isDefault(board) ? periodLabel(period) : `${boardName(board)} · ${periodLabel(period)}`);
  const lowerIsBetter = (board = state.board) => (boardInfo(board) || {}).order === 'asc';
  /** Whether score a ranks ahead of score b on the board. */
  const better = (a, b, board = state.board) => (lowerIsBetter(board) ? a < b : a > b);

  /** "All-Time", "Today (2026-11-30)", "Week 2026-W47", ... for a concrete leaderboard_id of the default board. */
  function boardLabel(id) {
    if (!id || id === 'all-time') return 'All-Time';
    if (id === currentId('daily', DEFAULT_BOARD)) return `Today (${id.slice(6)})`;
    if (id === currentId('weekly', DEFAULT_BOARD)) return `This Week (${id.slice(7)})`;
    if (id.startsWith('daily-')) return `Day ${id.slice(6)}`;
    if (id.startsWith('weekly-')) return `Week ${id.slice(7)}`;
    return id;
  }

  // ---------------------------------------------------------------- HTTP

  class ApiError extends Error {
    constructor(message, status, body) {
      super(message);
      this.name = 'ApiError';
      this.status = status;
      this.body = body;
    }
  }

  function describeFailure(status, body) {
    const detail = body && typeof body.error === 'string' ? body.error : '';
    if (status === 0) return 'Dashboard server unreachable (network error)';
    if (status === 502 || status === 503 || status === 504) {
      const extra = detail && !/^API unreachable/i.test(detail) ? `: ${detail}` : '';
      return `API unreachable (HTTP ${status})${extra}`;
    }
    if (status === 401) return 'Admin sign-in required (HTTP 401)';
    if (status === 429) return 'Too many requests (HTTP 429): slow down a little';
    return `API error (HTTP ${status})${detail ? `: ${detail}` : ''}`;
  }

  /** fetch + JSON, timed. Resolves {status, data, ms}; rejects with ApiError (or AbortError). */
  async function request(url, options = {}) {
    const method = options.method || 'GET';
    const started = performance.now();
    let response;
    try {
      response = await fetch(url, {
        cache: 'no-store',
        credentials: 'same-origin',
        ...options,
        headers: { Accept: 'application/json', ...(options.headers || {}) },
      });
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      logRequest(method, url, 'network error', performance.now() - started);
      throw new ApiError(describeFailure(0), 0, null);
    }
    const text = await response.text();
    const ms = performance.now() - started;
    logRequest(method, url, response.status, ms);
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch (_) {
        data = undefined;
      }
    }
    if (!response.ok) throw new ApiError(describeFailure(response.status, data), response.status, data);
    if (data === undefined) {
      throw new ApiError(`Unexpected response (HTTP ${response.status}, not JSON)`, response.status, null);
    }
    return { status: response.status, data, ms };
  }

  const apiUrl = (path, params) => `${state.config.apiBase}${path}${params ? `?${new URLSearchParams(params)}` : ''}`;
  const adminUrl = (path) => `${state.config.adminBase}${path}`;

  function logRequest(method, url, status, ms) {
    const body = $('#request-log-body');
    const ok = typeof status === 'number' && status < 400;
    body.prepend(
      h('tr', { class: ok ? '' : 'bad' },
        h('td', null, timeFormat.format(new Date())),
        h('td', null, h('code', null, `${method} ${url}`)),
        h('td', { class: 'num' }, String(status)),
        h('td', { class: 'num' }, String(Math.round(ms)))),
    );
    while (body.rows.length > LOG_SIZE) body.deleteRow(-1);
  }

  // ---------------------------------------------------------------- connection indicator

  function setConnection(kind, text) {
    const el = $('#connection');
    el.dataset.state = kind;
    $('#connection-text').textContent = text;
  }

  // ---------------------------------------------------------------- leaderboard

  // ---------------------------------------------------------------- boards and periods

  /** GET /leaderboards: fills the board picker. Concurrent callers share one request. */
  function loadBoards() {
    if (state.boardsPromise) return state.boardsPromise;
    state.boardsPromise = (async () => {
      try {
        const { data } = await request(apiUrl('/leaderboards'));
        const list = Array.isArray(data && data.leaderboards) ? data.leaderboards : [];
        const boards = new Map();
        for (const board of list) {
          if (!board || typeof board.board_id !== 'string') continue;
          const periods = (Array.isArray(board.periods) ? board.periods : [])
            .map((p) => (typeof p === 'string' ? { period: p, current: null, next_reset: null } : p))
            .filter((p) => p && typeof p.period === 'string');
          if (periods.length) boards.set(board.board_id, { ...board, periods });
        }
        if (!boards.has(DEFAULT_BOARD)) boards.set(DEFAULT_BOARD, FALLBACK_BOARD);
        // A board that vanished while it is on screen stays in the picker: its reads say what happened.
        if (!boards.has(state.board) && state.boards.has(state.board)) boards.set(state.board, state.boards.get(state.board));
        state.boards = boards;
        state.boardsLoaded = true;
        renderBoardPicker();
        const pending = state.pendingView;
        state.pendingView = null;
        if (pending && boardInfo(pending.board)) selectView(pending.board, pending.period);
        else if (tabPeriods().join() !== boardPeriods().join()) selectView(state.board, state.period, { load: false, rebuild: true });
        renderBoardMeta();
      } catch (err) {
        // The picker keeps what it had (at least the default board); the board's own read shows the error.
      } finally {
        state.boardsFetchedAt = Date.now();
        state.boardsPromise = null;
      }
    })();
    return state.boardsPromise;
  }

  function renderBoardPicker() {
    const select = $('#board-select');
    const options = [...state.boards.values()].map((board) =>
      h('option', { value: board.board_id, selected: board.board_id === state.board ? true : null },
        board.name && board.name !== board.board_id ? board.name : board.board_id));
    const same = select.options.length === options.length
      && options.every((o, i) => select.options[i].value === o.value && select.options[i].textContent === o.textContent);
    if (!same) select.replaceChildren(...options);
    select.value = state.board;
  }

  const tabPeriods = () => [...document.querySelectorAll('#period-tabs [role="tab"]')].map((t) => t.dataset.period);

  /** One tab per period the board keeps, in the board's order. */
  function renderTabs() {
    $('#period-tabs').replaceChildren(...boardPeriods().map((period) =>
      h('button', {
        type: 'button', role: 'tab', id: `tab-${period}`, 'data-testid': `tab-${period}`, dataset: { period },
        'aria-controls': 'board-panel', 'aria-selected': 'false', tabindex: '-1',
      }, periodLabel(period))));
  }

  /** Show one board and period: picker, tabs, labels, URL; then (load) read it. */
  function selectView(board, period, { focus = false, load = true, rebuild = false } = {}) {
    if (!boardInfo(board)) board = DEFAULT_BOARD;
    const periods = boardPeriods(board);
    if (!periods.includes(period)) period = periods.includes(state.period) ? state.period : periods[0];
    const boardChanged = board !== state.board;
    const changed = boardChanged || period !== state.period;
    state.board = board;
    state.period = period;
    $('#board-select').value = board;
    if (boardChanged || rebuild || tabPeriods().join() !== periods.join()) renderTabs();
    for (const tab of document.querySelectorAll('#period-tabs [role="tab"]')) {
      const selected = tab.dataset.period === period;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
      if (selected && focus) tab.focus();
    }
    const label = viewLabel();
    $('#board-panel').setAttribute('aria-labelledby', `tab-${period}`);
    updateCaption();
    $('#history-board').textContent = label;
    $('#chart-mode').hidden = !isDefault(board); // only the default board has snapshots to chart
    $('#board-id').textContent = currentId(period);
    syncAdminControls();
    renderBoardMeta();
    const hash = viewHash(board, period);
    if (location.hash !== hash) history.replaceState(null, '', hash);
    if (changed) {
      state.previous = new Map();
      state.renderedKey = '';
      $('#board-body').replaceChildren();
      hideLeaderBanner();
    }
    if (load) {
      loadBoard();
      loadHistory();
      // The lookup shows the players around them on the board and period picked.
      if (changed && state.lookupId && (boardChanged || !isDefault())) lookupPlayer(state.lookupId, { quiet: true });
    }
  }

  /** A view from the URL: "#weekly" (default board) or "#speedrun/weekly"; a board not listed yet waits for the list. */
  async function openView(hash) {
    const { board, period } = parseHash(hash);
    if (!boardInfo(board) && !state.boardsLoaded) await loadBoards();
    state.pendingView = !boardInfo(board) && !state.boardsLoaded ? { board, period } : null;
    selectView(board, period);
  }

  function parseHash(hash) {
    let raw = String(hash || '').replace(/^#/, '');
    try {
      raw = decodeURIComponent(raw);
    } catch (_) {
      raw = '';
    }
    const slash = raw.indexOf('/');
    if (slash < 0) return { board: DEFAULT_BOARD, period: raw || 'all-time' };
    return { board: raw.slice(0, slash) || DEFAULT_BOARD, period: raw.slice(slash + 1) || 'all-time' };
  }

  const viewHash = (board, period) => (isDefault(board) ? `#${period}` : `#${encodeURIComponent(board)}/${period}`);

  function updateCaption() {
    $('#board-caption').textContent = `${viewLabel()} leaderboard, top ${state.limit}, ${lowerIsBetter() ? 'lower' : 'higher'} scores are better`;
  }

  function periodInfo(board = state.board, period = state.period) {
    return ((boardInfo(board) || FALLBACK_BOARD).periods || []).find((p) => p.period === period) || null;
  }

  /** "Lower is better" for asc boards, and the time left until the period starts over. */
  function renderBoardMeta() {
    const asc = lowerIsBetter();
    const order = $('#board-order');
    order.dataset.order = asc ? 'asc' : 'desc';
    order.replaceChildren(h('span', { 'aria-hidden': 'true' }, asc ? '↓ ' : '↑ '), asc ? 'Lower is better' : 'Higher is better');
    const reset = $('#board-reset');
    const info = periodInfo();
    if (state.period === 'all-time') {
      reset.dataset.reset = 'never';
      reset.replaceChildren('All-time: never resets');
      return;
    }
    const at = info && info.next_reset ? parseTime(info.next_reset) : null;
    if (!at) {
      reset.dataset.reset = 'unknown';
      reset.replaceChildren();
      return;
    }
    const left = at.getTime() - Date.now();
    reset.dataset.reset = at.toISOString();
    const when = h('time', { datetime: at.toISOString() }, utcFormat.format(at), ' UTC');
    if (left <= 0) {
      reset.replaceChildren(`${periodLabel(state.period)} is starting over…`);
      if (Date.now() - state.boardsFetchedAt > BOARDS_MIN_AGE_MS) loadBoards();
      return;
    }
    reset.replaceChildren(`Resets in ${fmtDuration(left)}`, h('span', { class: 'muted' }, ' · '), when);
  }

  function fmtDuration(ms) {
    const minutes = Math.floor(ms / 60000);
    const d = Math.floor(minutes / 1440);
    const hrs = Math.floor((minutes % 1440) / 60);
    const min = minutes % 60;
    if (d > 0) return `${d} d ${hrs} h`;
    if (hrs > 0) return `${hrs} h ${min} min`;
    if (min > 0) return `${min} min`;
    return 'less than a minute';
  }

  // ---------------------------------------------------------------- leaderboard

  function onTabKeydown(event) {
    const tabs = [...document.querySelectorAll('#period-tabs [role="tab"]')];
    const index = tabs.indexOf(event.target);
    if (index < 0) return;
    let next = null;
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = tabs[(index + 1) % tabs.length];
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = tabs[(index - 1 + tabs.length) % tabs.length];
    else if (event.key === 'Home') next = tabs[0];
    else if (event.key === 'End') next = tabs[tabs.length - 1];
    if (!next) return;
    event.preventDefault();
    state.pendingView = null;
    selectView(state.board, next.dataset.period, { focus: true });
  }

  function schedule() {
    clearTimeout(state.timer);
    state.timer = null;
    if (state.paused || document.hidden) return;
    state.timer = setTimeout(() => {
      state.tick += 1;
      loadBoard({ background: true });
      if (state.tick % HISTORY_EVERY_TICKS === 0) loadHistory({ background: true });
    }, REFRESH_MS);
  }

  function setPaused(paused) {
    state.paused = paused;
    const button = $('#refresh-toggle');
    button.setAttribute('aria-pressed', String(paused));
    button.textContent = paused ? 'Resume auto-refresh' : 'Pause auto-refresh';
    $('#refresh-state').textContent = paused ? 'Auto-refresh paused' : `Auto-refresh every ${REFRESH_MS / 1000} s`;
    $('#refresh-state').dataset.paused = String(paused);
    if (paused) {
      clearTimeout(state.timer);
      setConnection('paused', 'Paused');
    } else {
      loadBoard();
    }
  }

  async function loadBoard({ background = false } = {}) {
    clearTimeout(state.timer);
    if (state.boardController) state.boardController.abort();
    const controller = new AbortController();
    state.boardController = controller;
    const seq = ++state.boardSeq;
    const { board, period } = state;
    const status = $('#board-status');
    const table = $('#board-table');
    if (!state.renderedKey && !background) {
      table.setAttribute('aria-busy', 'true');
      setStatus(status, 'loading', `Loading the ${viewLabel()} board…`);
    }
    // The default board reads through its original route; every other board through /leaderboards/{board}/top.
    const url = isDefault(board)
      ? apiUrl('/leaderboard', { period, limit: state.limit })
      : apiUrl(`/leaderboards/${encodeURIComponent(board)}/top`, { period, limit: state.limit });
    try {
      const { data, ms } = await request(url, { signal: controller.signal });
      if (seq !== state.boardSeq) return;
      if (data && data.leaderboard_id) {
        if (isDefault(board)) state.currentIds[period] = data.leaderboard_id;
        $('#board-id').textContent = data.leaderboard_id;
        // A period that has started over since the board list was read: read the list (next reset) again.
        const info = periodInfo(board, period);
        const current = data.period_id || data.leaderboard_id;
        if (info && info.current && info.current !== current && Date.now() - state.boardsFetchedAt > BOARDS_MIN_AGE_MS) loadBoards();
      }
      renderBoard(Array.isArray(data && data.entries) ? data.entries : [], `${board}|${period}`);
      recordTiming(ms);
      renderBoardMeta();
      setConnection(state.paused ? 'paused' : 'live', state.paused ? 'Paused' : 'Live');
      if (!state.boardsLoaded && !state.boardsPromise) loadBoards(); // the API is back: fill the picker
    } catch (err) {
      if (err.name === 'AbortError' || seq !== state.boardSeq) return;
      const stale = state.renderedKey
        ? ` Showing the data from ${$('#updated-at').textContent}.`
        : '';
      setStatus(status, 'error', `${err.message}.${stale} Retrying every ${REFRESH_MS / 1000} s.`);
      table.dataset.stale = String(Boolean(state.renderedKey));
      setConnection('error', err.status === 0 || err.status >= 502 ? 'API unreachable' : 'API error');
    } finally {
      if (seq === state.boardSeq) {
        table.removeAttribute('aria-busy');
        state.boardController = null;
        schedule();
      }
    }
  }

  function recordTiming(ms) {
    state.timings.push(ms);
    if (state.timings.length > TIMING_WINDOW) state.timings.shift();
    const sorted = [...state.timings].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)];
    $('#query-time').textContent = fmtMs(ms);
    $('#query-median').textContent = fmtMs(median);
    $('#timing-count').textContent = String(state.timings.length);
    $('#updated-at').textContent = timeFormat.format(new Date());
  }

  function renderBoard(entries, view) {
    const status = $('#board-status');
    const body = $('#board-body');
    const table = $('#board-table');
    table.dataset.stale = 'false';
    const key = JSON.stringify(entries.map((e) => [e.player_id, e.rank, e.score, e.player_name]));
    if (key === state.renderedKey) {
      if (status.dataset.kind !== 'empty') setStatus(status, '', '');
      return;
    }
    state.renderedKey = key;

    if (entries.length === 0) {
      body.replaceChildren(h('tr', { class: 'empty-row' }, h('td', { colspan: 3 }, 'No scores yet.')));
      setStatus(status, 'empty', emptyBoardMessage());
      state.previous = new Map();
      table.dataset.count = '0';
      return;
    }
    setStatus(status, '', '');

    // FLIP: remember where each player's row was, render, then animate from there.
    const before = new Map();
    for (const row of body.rows) if (row.dataset.playerId) before.set(row.dataset.playerId, row.getBoundingClientRect().top);
    const focusedId = document.activeElement && body.contains(document.activeElement)
      ? document.activeElement.dataset.lookup
      : null;
    const previous = state.previous;
    const hadPrevious = previous.size > 0;

    const rows = entries.map((entry) => {
      const old = previous.get(entry.player_id);
      const classes = ['row'];
      let change = '';
      if (hadPrevious && !old) {
        classes.push('entered');
        change = 'new';
      } else if (old && entry.rank < old.rank) {
        classes.push('moved-up');
        change = `up ${old.rank - entry.rank}`;
      } else if (old && entry.rank > old.rank) {
        classes.push('moved-down');
        change = `down ${entry.rank - old.rank}`;
      }
      if (old && better(entry.score, old.score)) classes.push('score-up');
      if (entry.rank <= 3) classes.push(`top-${entry.rank}`);
      const name = entry.player_name || entry.player_id;
      return h('tr', { class: classes, dataset: { playerId: entry.player_id, rank: entry.rank }, 'data-testid': 'board-row' },
        h('td', { class: 'rank' }, h('span', { class: 'rank-badge', 'data-testid': 'row-rank' }, String(entry.rank))),
        h('td', { class: 'player' },
          h('button', {
            type: 'button', class: 'link player-link', dataset: { lookup: entry.player_id },
            'data-testid': 'row-name', title: `Look up ${name}`,
          }, name),
          h('span', { class: 'player-id' }, entry.player_id),
          change ? h('span', { class: `change ${change.split(' ')[0]}`, 'data-testid': 'row-change' },
            change === 'new' ? 'new' : `${change.startsWith('up') ? '▲' : '▼'} ${change.split(' ')[1]}`,
            h('span', { class: 'visually-hidden' }, change === 'new' ? ' entered the board' : ` places`)) : null),
        h('td', { class: 'num score', 'data-testid': 'row-score' }, fmt(entry.score)));
    });
    body.replaceChildren(...rows);
    table.dataset.count = String(entries.length);

    if (!reducedMotion.matches && before.size) {
      for (const row of rows) {
        const top = before.get(row.dataset.playerId);
        if (top === undefined) continue;
        const delta = top - row.getBoundingClientRect().top;
        if (Math.abs(delta) < 1) continue;
        row.animate([{ transform: `translateY(${delta}px)` }, { transform: 'translateY(0)' }], {
          duration: 650, easing: 'cubic-bezier(.2,.8,.2,1)',
        });
      }
    }
    if (focusedId) {
      const again = body.querySelector(`[data-lookup="${CSS.escape(focusedId)}"]`);
      if (again) again.focus({ preventScroll: true });
    }

    state.previous = new Map(entries.map((e) => [e.player_id, { rank: e.rank, score: e.score }]));
    const leader = entries[0];
    const was = state.leaders[view];
    state.leaders[view] = { id: leader.player_id, name: leader.player_name || leader.player_id };
    if (was && was.id !== leader.player_id) {
      showLeaderBanner(`New leader on ${viewLabel()}: ${state.leaders[view].name} (${fmt(leader.score)}), ahead of ${was.name}`);
    }
  }

  function emptyBoardMessage() {
    if (!isDefault()) {
      return `No scores on ${viewLabel()} yet — they appear here as soon as a game submits one `
        + `(POST /leaderboards/${state.board}/scores with the API key).`;
    }
    return state.admin
      ? 'No scores yet on this board — seed some with “Seed players” in the Admin panel.'
      : 'No scores yet on this board — seed some: sign in as admin, then use “Seed players” (or submit scores to the API).';
  }

  function showLeaderBanner(text) {
    const banner = $('#leader-banner');
    banner.textContent = `★ ${text}`;
    banner.hidden = false;
    banner.classList.remove('flash');
    void banner.offsetWidth; // restart the CSS animation
    banner.classList.add('flash');
    clearTimeout(state.leaderTimer);
    state.leaderTimer = setTimeout(hideLeaderBanner, 8000);
  }

  function hideLeaderBanner() {
    clearTimeout(state.leaderTimer);
    const banner = $('#leader-banner');
    banner.hidden = true;
    banner.textContent = '';
  }

  // ---------------------------------------------------------------- player lookup

  const settle = (promise) => promise.then((r) => ({ ok: true, ...r }), (err) => ({ ok: false, err }));
  const aroundUrl = (board, period, playerId) =>
    apiUrl(`/leaderboards/${encodeURIComponent(board)}/players/${encodeURIComponent(playerId)}`, { period, window: AROUND_WINDOW });

  /** Every period of the default board the player is on (GET /player), and, when another board is picked,
   * their place on it (GET /leaderboards/{board}/players/{id}); the players around them come from that
   * around-me route for each. quiet: a refresh after the board or period changed (no loading state). */
  async function lookupPlayer(playerId, { quiet = false } = {}) {
    const id = playerId.trim();
    const status = $('#lookup-status');
    const result = $('#lookup-result');
    if (!id) {
      setStatus(status, 'error', 'Enter a player ID to look up.');
      $('#player-id').focus();
      return;
    }
    const seq = ++state.lookupSeq;
    const { board, period } = state;
    state.lookupId = id;
    result.setAttribute('aria-busy', 'true');
    if (!quiet) setStatus(status, 'loading', `Looking up “${id}”…`);
    try {
      const [player, picked] = await Promise.all([
        settle(request(apiUrl('/player', { player_id: id }))),
        isDefault(board) ? null : settle(request(aroundUrl(board, period, id))),
      ]);
      if (seq !== state.lookupSeq) return;
      const failure = [player, picked].find((r) => r && !r.ok && r.err.status !== 404);
      if (failure) throw failure.err;
      const boards = player.ok && Array.isArray(player.data.boards) ? player.data.boards : [];
      const onPicked = Boolean(picked && picked.ok);
      if (!boards.length && !onPicked) {
        result.replaceChildren();
        setStatus(status, 'empty', isDefault(board)
          ? `No player with ID “${id}” is on any board yet.`
          : `No player with ID “${id}” is on the ${boardName(DEFAULT_BOARD)} board or on ${viewLabel(board, period)} yet.`);
        return;
      }
      const found = boards.length + (onPicked ? 1 : 0);
      const ms = Math.max(player.ms || 0, (picked && picked.ms) || 0);
      setStatus(status, 'ok', `Found on ${found} board${found === 1 ? '' : 's'} in ${fmtMs(ms)}.`);
      const name = (player.ok && player.data.player_name) || (onPicked && picked.data.player_name) || id;
      renderLookup({ id, name, board, period, picked, boards });
      await Promise.all(boards.map((b) => loadNeighbours(b, id, seq)));
    } catch (err) {
      if (seq !== state.lookupSeq) return;
      result.replaceChildren();
      setStatus(status, 'error', `${err.message}.`);
    } finally {
      if (seq === state.lookupSeq) result.removeAttribute('aria-busy');
    }
  }

  /** One board period of the player: rank of total, score, percentile, a meter, and where the neighbours go. */
  function playerCard(key, title, stats, { picked = false } = {}) {
    const pct = Math.max(0, Math.min(100, Number(stats.percentile) || 0));
    const meter = h('div', { class: 'meter', 'aria-hidden': 'true' }, h('span', { class: 'meter-fill' }));
    meter.firstChild.style.width = `${pct}%`; // CSSOM, allowed by the CSP (no style attribute)
    return h('li', { class: ['player-board', picked && 'picked'], dataset: { board: key }, 'data-testid': 'player-board' },
      h('h4', null, title),
      h('dl', { class: 'stats' },
        h('div', null, h('dt', null, 'Rank'), h('dd', { 'data-testid': 'player-rank' }, `#${fmt(stats.rank)}`, h('span', { class: 'muted' }, ` of ${fmt(stats.total_players)}`))),
        h('div', null, h('dt', null, 'Score'), h('dd', { 'data-testid': 'player-score' }, fmt(stats.score))),
        h('div', null, h('dt', null, 'Percentile'), h('dd', { 'data-testid': 'player-percentile' }, `${pct.toFixed(1)}`))),
      meter,
      h('p', { class: 'muted small' }, `Ahead of ${pct.toFixed(1)}% of the ${fmt(stats.total_players)} players on this board.`),
      h('div', { class: 'neighbours', 'data-testid': 'player-neighbours' }, h('p', { class: 'muted small' }, 'Loading the players around them…')));
  }

  function renderLookup({ id, name, board, period, picked, boards }) {
    const order = (b) => (b.leaderboard_id === 'all-time' ? 0 : b.leaderboard_id.startsWith('weekly-') ? 1 : 2);
    boards.sort((a, b) => order(a) - order(b) || b.leaderboard_id.localeCompare(a.leaderboard_id));
    const parts = [
      h('h3', { class: 'player-name', tabindex: '-1', 'data-testid': 'player-name' }, name, ' ', h('span', { class: 'player-id' }, id)),
    ];
    if (picked) {
      // The board and period picked above the table first, with the players around them from the same answer.
      const title = viewLabel(board, period);
      if (picked.ok) {
        const card = playerCard(picked.data.leaderboard_id || `${board}#${period}`, title, picked.data, { picked: true });
        renderNeighbours($('.neighbours', card), picked.data, id, board);
        parts.push(h('ul', { class: 'player-boards', 'data-testid': 'picked-board' }, card));
      } else {
        parts.push(h('p', { class: 'muted small not-on', 'data-testid': 'picked-board' }, `Not on ${title} yet.`));
      }
      parts.push(h('p', { class: 'group-title small', 'data-testid': 'default-board-title' },
        boards.length ? `On the ${boardName(DEFAULT_BOARD)} board` : `Not on the ${boardName(DEFAULT_BOARD)} board yet.`));
    }
    if (boards.length) {
      parts.push(h('ul', { class: 'player-boards' }, boards.map((b) => playerCard(b.leaderboard_id, boardLabel(b.leaderboard_id), b))));
    }
    $('#lookup-result').replaceChildren(...parts);
  }

  /** The around-me list: the players above, this player, the players below, each with their rank. */
  function renderNeighbours(box, data, playerId, board) {
    const me = { rank: data.rank, player_id: data.player_id || playerId, player_name: data.player_name, score: data.score };
    const rows = [...(data.above || []), me, ...(data.below || [])];
    box.replaceChildren(
      h('p', { class: 'small neighbours-title' }, 'Around them', lowerIsBetter(board) ? h('span', { class: 'muted' }, ' (lower is better)') : null),
      h('ol', { class: 'neighbour-list' }, rows.map((e) => {
        const isMe = e === me;
        return h('li', { class: isMe ? 'me' : '', 'aria-current': isMe ? 'true' : null, 'data-testid': isMe ? 'neighbour-me' : 'neighbour' },
          h('span', { class: 'n-rank' }, `#${e.rank}`),
          h('span', { class: 'n-name' }, e.player_name || e.player_id, isMe ? h('span', { class: 'you' }, ' (this player)') : null),
          h('span', { class: 'n-score num' }, fmt(e.score)));
      })));
  }

  async function loadNeighbours(board, playerId, seq) {
    const card = [...document.querySelectorAll('#lookup-result .player-board')].find((el) => el.dataset.board === board.leaderboard_id);
    if (!card) return;
    const box = $('.neighbours', card);
    try {
      const { data } = await request(aroundUrl(DEFAULT_BOARD, board.leaderboard_id, playerId));
      if (seq !== state.lookupSeq) return;
      renderNeighbours(box, data, playerId, DEFAULT_BOARD);
    } catch (err) {
      if (seq !== state.lookupSeq) return;
      box.replaceChildren(h('p', { class: 'error small' }, err.status === 404
        ? 'No longer on this board (the period has ended).'
        : `Could not load the players around them: ${err.message}.`));
    }
  }

  // ---------------------------------------------------------------- snapshot history

  async function loadHistory({ background = false } = {}) {
    const { board, period } = state;
    const seq = ++state.historySeq;
    const status = $('#history-status');
    if (!isDefault(board)) {
      // The API keeps snapshots (POST /snapshot, GET /snapshots) of the default board only.
      state.history = [];
      renderHistory([]);
      setStatus(status, 'empty', `Snapshots are kept for the ${boardName(DEFAULT_BOARD)} board only: pick it in “Board” to see its history and chart.`);
      return;
    }
    if (!background) setStatus(status, 'loading', `Loading the ${periodLabel(period)} snapshots…`);
    try {
      const { data, ms } = await request(apiUrl('/snapshots', { period, limit: HISTORY_LIMIT }));
      if (seq !== state.historySeq || period !== state.period || board !== state.board) return;
      const snapshots = Array.isArray(data.snapshots) ? data.snapshots : [];
      state.history = snapshots;
      renderHistory(snapshots);
      if (snapshots.length === 0) {
        setStatus(status, 'empty', 'No snapshots of this board yet — take one from the Admin panel.');
      } else {
        const more = snapshots.length === 1 ? ' Take another to see how the players move.' : '';
        setStatus(status, 'ok', `${snapshots.length} snapshot${snapshots.length === 1 ? '' : 's'} (newest first), loaded in ${fmtMs(ms)}.${more}`);
      }
    } catch (err) {
      if (err.name === 'AbortError' || seq !== state.historySeq) return;
      setStatus(status, 'error', `Could not load the snapshots: ${err.message}.`);
    }
  }

  function renderHistory(snapshots) {
    const list = $('#history-list');
    list.replaceChildren(...snapshots.map((snap, i) => {
      const taken = parseTime(snap.taken_at);
      const entries = Array.isArray(snap.entries) ? snap.entries : [];
      const leader = entries[0];
      return h('li', { class: 'snapshot', 'data-testid': 'history-item', dataset: { snapshotId: snap.snapshot_id || '' } },
        h('details', { open: i === 0 && snapshots.length <= 3 ? true : null },
          h('summary', null,
            h('time', { datetime: taken ? taken.toISOString() : '' }, taken ? dateTimeFormat.format(taken) : String(snap.taken_at)),
            h('span', { class: 'muted' }, ` · ${entries.length} player${entries.length === 1 ? '' : 's'}`),
            leader ? h('span', { class: 'snap-leader' }, ` · leader ${leader.player_name || leader.player_id} (${fmt(leader.score)})`) : null),
          h('ol', { class: 'snapshot-entries' }, entries.slice(0, 10).map((e) =>
            h('li', null, h('span', { class: 'n-rank' }, `#${e.rank}`), h('span', { class: 'n-name' }, e.player_name || e.player_id),
              h('span', { class: 'n-score num' }, fmt(e.score)))))));
    }));
    drawChart([...snapshots].reverse());
  }

  /** Line chart of the newest snapshot's top players across snapshots, oldest → newest. */
  function drawChart(snapshots) {
    const svg = $('#history-chart');
    const legend = $('#history-legend');
    const mode = state.historyMode;
    svg.closest('figure').hidden = snapshots.length === 0; // the status line says why
    // Draw in the element's own pixel size, so labels stay legible on a phone.
    const W = Math.round(Math.max(300, Math.min(900, svg.getBoundingClientRect().width || 720)));
    const H = W < 520 ? 240 : 300;
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    const pad = { top: 18, right: 16, bottom: 46, left: mode === 'score' ? 62 : 46 };
    const plotW = W - pad.left - pad.right;
    const plotH = H - pad.top - pad.bottom;
    svg.replaceChildren();
    legend.replaceChildren();
    const title = s('title', { id: 'history-chart-title' });
    const desc = s('desc', { id: 'history-chart-desc' });
    svg.append(title, desc);
    svg.dataset.points = '0';
    svg.dataset.snapshots = String(snapshots.length);

    if (snapshots.length === 0) {
      title.textContent = 'No snapshots yet';
      desc.textContent = 'The chart appears after the first snapshot of this board.';
      svg.append(s('text', { x: W / 2, y: H / 2, class: 'chart-empty', 'text-anchor': 'middle' }, 'No snapshots yet'));
      return;
    }

    const newest = snapshots[snapshots.length - 1];
    const players = (newest.entries || []).slice(0, CHART_SERIES).map((e) => ({ id: e.player_id, name: e.player_name || e.player_id }));
    const series = players.map((p) => ({
      ...p,
      points: snapshots.map((snap, i) => {
        const entry = (snap.entries || []).find((e) => e.player_id === p.id);
        return entry ? { i, value: mode === 'score' ? entry.score : entry.rank, entry, snap } : null;
      }),
    }));
    const values = series.flatMap((sr) => sr.points.filter(Boolean).map((pt) => pt.value));
    if (values.length === 0) {
      title.textContent = 'No players in the snapshots';
      svg.append(s('text', { x: W / 2, y: H / 2, class: 'chart-empty', 'text-anchor': 'middle' }, 'The snapshots are empty'));
      return;
    }

    let lo;
    let hi;
    if (mode === 'score') {
      lo = Math.min(...values);
      hi = Math.max(...values);
      if (lo === hi) { lo = Math.max(0, lo - 1); hi += 1; }
      const span = hi - lo;
      lo = Math.max(0, lo - span * 0.08);
      hi += span * 0.08;
    } else {
      lo = 1;
      hi = Math.max(2, ...values);
    }
    const x = (i) => pad.left + (snapshots.length === 1 ? plotW / 2 : (i / (snapshots.length - 1)) * plotW);
    const y = mode === 'score'
      ? (v) => pad.top + plotH - ((v - lo) / (hi - lo)) * plotH
      : (v) => pad.top + ((v - lo) / (hi - lo)) * plotH; // rank 1 at the top

    // grid and y axis
    const ticks = mode === 'score' ? niceTicks(lo, hi, 5) : rankTicks(hi);
    const grid = s('g', { class: 'grid' });
    for (const t of ticks) {
      grid.append(s('line', { x1: pad.left, x2: W - pad.right, y1: y(t), y2: y(t) }));
      grid.append(s('text', { x: pad.left - 8, y: y(t) + 4, 'text-anchor': 'end', class: 'tick' }, mode === 'score' ? compact(t) : `#${t}`));
    }
    svg.append(grid);
    svg.append(s('text', { x: 14, y: pad.top + plotH / 2, class: 'axis-title', transform: `rotate(-90 14 ${pad.top + plotH / 2})`, 'text-anchor': 'middle' },
      mode === 'score' ? 'Score' : 'Rank'));

    // x axis: snapshot times, thinned to fit
    const xAxis = s('g', { class: 'x-axis' });
    const last = snapshots.length - 1;
    const every = Math.ceil(snapshots.length / Math.max(2, Math.floor(plotW / 80)));
    snapshots.forEach((snap, i) => {
      // every n-th label, the newest always, and none crowding the newest
      if (i !== last && (i % every !== 0 || last - i < every)) return;
      const t = parseTime(snap.taken_at);
      const anchor = snapshots.length === 1 ? 'middle' : i === 0 ? 'start' : i === snapshots.length - 1 ? 'end' : 'middle';
      xAxis.append(s('text', { x: x(i), y: H - pad.bottom + 18, 'text-anchor': anchor, class: 'tick' }, t ? tickFormat.format(t) : `#${i + 1}`));
    });
    xAxis.append(s('line', { x1: pad.left, x2: W - pad.right, y1: pad.top + plotH, y2: pad.top + plotH, class: 'axis' }));
    xAxis.append(s('text', { x: pad.left + plotW / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-title' }, 'Snapshot taken (oldest → newest)'));
    svg.append(xAxis);

    // one line per player, with a marker shape per series so colour is not the only cue
    let pointCount = 0;
    series.forEach((sr, k) => {
      const g = s('g', { class: `series series-${k}`, 'data-testid': 'chart-series', dataset: { player: sr.id } });
      let path = '';
      let pen = false;
      for (const pt of sr.points) {
        if (!pt) { pen = false; continue; }
        path += `${pen ? 'L' : 'M'}${x(pt.i).toFixed(1)},${y(pt.value).toFixed(1)}`;
        pen = true;
      }
      g.append(s('path', { d: path, class: 'line' }));
      for (const pt of sr.points) {
        if (!pt) continue;
        const t = parseTime(pt.snap.taken_at);
        const label = `${sr.name}: ${mode === 'score' ? fmt(pt.entry.score) : `rank #${pt.entry.rank}`}${t ? ` at ${dateTimeFormat.format(t)}` : ''}`;
        const marker = markerShape(k, x(pt.i), y(pt.value));
        marker.append(s('title', null, label));
        g.append(marker);
        pointCount += 1;
      }
      svg.append(g);
      legend.append(h('li', { class: `series-${k}`, 'data-testid': 'legend-item' },
        h('span', { class: 'swatch', 'aria-hidden': 'true' }), sr.name));
    });
    svg.dataset.points = String(pointCount);
    title.textContent = `${mode === 'score' ? 'Scores' : 'Ranks'} of the top ${series.length} players across ${snapshots.length} snapshot${snapshots.length === 1 ? '' : 's'}`;
    desc.textContent = series.map((sr) => {
      const pts = sr.points.filter(Boolean);
      const first = pts[0];
      const last = pts[pts.length - 1];
      return mode === 'score'
        ? `${sr.name}: ${fmt(first.entry.score)} to ${fmt(last.entry.score)}`
        : `${sr.name}: rank ${first.entry.rank} to ${last.entry.rank}`;
    }).join('; ');
  }

  function markerShape(k, cx, cy) {
    const r = 4.5;
    switch (k % 5) {
      case 1: return s('rect', { x: cx - r, y: cy - r, width: r * 2, height: r * 2, class: 'marker' });
      case 2: return s('path', { d: `M${cx},${cy - r - 1}L${cx + r + 1},${cy + r}L${cx - r - 1},${cy + r}Z`, class: 'marker' });
      case 3: return s('path', { d: `M${cx},${cy - r - 1}L${cx + r + 1},${cy}L${cx},${cy + r + 1}L${cx - r - 1},${cy}Z`, class: 'marker' });
      case 4: return s('path', { d: `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx - r},${cy + r}L${cx + r},${cy - r}`, class: 'marker cross' });
      default: return s('circle', { cx, cy, r, class: 'marker' });
    }
  }

  function niceTicks(lo, hi, count) {
    const raw = (hi - lo) / count;
    const mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw) || raw;
    const out = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(Math.round(t * 1e6) / 1e6);
    return out;
  }

  function rankTicks(maxRank) {
    const step = Math.max(1, Math.ceil(maxRank / 6));
    const out = [1];
    for (let r = 1 + step; r <= maxRank; r += step) out.push(r);
    return out;
  }

  function compact(n) {
    const abs = Math.abs(n);
    if (abs >= 1e12) return `${+(n / 1e12).toFixed(2)}T`;
    if (abs >= 1e9) return `${+(n / 1e9).toFixed(2)}B`;
    if (abs >= 1e6) return `${+(n / 1e6).toFixed(2)}M`;
    if (abs >= 1e4) return `${+(n / 1e3).toFixed(1)}k`;
    return fmt(Math.round(n));
  }

  // ---------------------------------------------------------------- admin

  function setAdmin(signedIn, message) {
    state.admin = signedIn;
    const stateEl = $('#admin-state');
    stateEl.dataset.state = signedIn ? 'signed-in' : 'signed-out';
    stateEl.textContent = message || (signedIn
      ? 'Signed in as admin. Actions go through Nginx, which adds the API key.'
      : 'Not signed in. Taking snapshots and seeding players need the admin password.');
    $('#admin-signin').hidden = signedIn;
    syncAdminControls();
    const boardStatus = $('#board-status');
    if (boardStatus.dataset.kind === 'empty') setStatus(boardStatus, 'empty', emptyBoardMessage());
  }

  /** Seed needs the sign-in; snapshot also needs the default board (the only one the API snapshots). */
  function syncAdminControls() {
    const snapshotable = isDefault();
    const button = $('#snapshot-button');
    if (!button.classList.contains('busy')) button.disabled = !state.admin || !snapshotable;
    $('#snapshot-board').textContent = snapshotable ? periodLabel(state.period) : boardName(DEFAULT_BOARD);
    const note = $('#snapshot-note');
    note.hidden = snapshotable;
    note.textContent = snapshotable ? '' : `Snapshots cover the ${boardName(DEFAULT_BOARD)} board only: pick it in “Board” to take one.`;
    for (const el of [$('#seed-count'), $('#seed-button')]) if (!el.classList.contains('busy')) el.disabled = !state.admin;
  }

  async function checkAdmin() {
    try {
      await request(adminUrl('/session'));
      setAdmin(true);
    } catch (err) {
      if (err.status === 401) setAdmin(false);
      else setAdmin(false, `Admin area unavailable: ${err.message}.`);
    }
  }

  async function signIn(event) {
    event.preventDefault();
    const result = $('#admin-result');
    setStatus(result, 'loading', 'Waiting for the browser’s sign-in dialog…');
    try {
      // A 401 with a Basic challenge makes the browser ask for the password, then retry.
      await request(adminUrl('/ping'));
      setAdmin(true);
      setStatus(result, 'ok', 'Signed in: snapshot and seed are enabled.');
      $('#snapshot-button').focus();
    } catch (err) {
      setAdmin(false);
      setStatus(result, 'error', err.status === 401
        ? 'Not signed in: the sign-in was cancelled or the password was wrong. Try “Sign in as admin” again.'
        : `Sign-in failed: ${err.message}.`);
    }
  }

  async function adminAction(button, busyText, path, body, onDone) {
    const result = $('#admin-result');
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    button.classList.add('busy');
    setStatus(result, 'loading', busyText);
    try {
      const { data, ms } = await request(adminUrl(path), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      setStatus(result, 'ok', `${onDone(data)} (${fmtMs(ms)}).`);
    } catch (err) {
      if (err.status === 401) {
        setAdmin(false);
        setStatus(result, 'error', 'Admin sign-in required (HTTP 401): use “Sign in as admin” first.');
      } else if (err.status === 403) {
        setStatus(result, 'error', `Refused (HTTP 403)${err.body && err.body.error ? `: ${err.body.error}` : ''}.`);
      } else {
        setStatus(result, 'error', `${err.message}.`);
      }
    } finally {
      button.classList.remove('busy');
      button.removeAttribute('aria-busy');
      syncAdminControls();
    }
  }

  function takeSnapshot() {
    if (!isDefault()) return;
    const period = state.period;
    adminAction($('#snapshot-button'), 'Taking snapshot…', '/snapshot', { period, limit: SNAPSHOT_LIMIT }, (data) => {
      const taken = parseTime(data.taken_at);
      loadHistory();
      const n = (data.entries || []).length;
      return `Snapshot of ${boardLabel(data.leaderboard_id)} taken${taken ? ` at ${timeFormat.format(taken)}` : ''}: ${n} player${n === 1 ? '' : 's'}`;
    });
  }

  function seedPlayers(event) {
    event.preventDefault();
    const input = $('#seed-count');
    const players = Number(input.value);
    if (!Number.isInteger(players) || players < 1 || players > 1000) {
      setStatus($('#admin-result'), 'error', 'Players to seed must be a whole number from 1 to 1000.');
      input.focus();
      return;
    }
    adminAction($('#seed-button'), 'Seeding…', '/simulate', { players }, (data) => {
      loadBoard();
      return `Seeded ${fmt(data.players ?? players)} players with ${fmt(data.writes ?? 0)} writes`;
    });
  }

  // ---------------------------------------------------------------- start-up

  async function loadConfig() {
    try {
      const response = await fetch('config.json', { cache: 'no-store', credentials: 'same-origin' });
      if (response.ok) {
        const data = await response.json();
        for (const key of Object.keys(DEFAULT_CONFIG)) {
          if (typeof data[key] === 'string') state.config[key] = data[key].replace(/\/+$/, '') || DEFAULT_CONFIG[key];
        }
      }
    } catch (_) {
      // no config.json: the defaults are right for the standard Nginx config
    }
    const { stage, apiUrl: url, apiBase, adminBase } = state.config;
    if (stage) {
      $('#stage-badge').textContent = stage;
      $('#stage-badge').hidden = false;
      document.title = `Leaderboard (${stage})`;
    }
    if (url) {
      $('#api-url').textContent = url;
      $('#api-url-wrap').hidden = false;
    }
    $('#api-base').textContent = apiBase;
    $('#admin-base').textContent = adminBase;
    $('#admin-signin').href = `${adminBase}/ping`;
  }

  function bind() {
    const tabs = $('#period-tabs');
    tabs.addEventListener('click', (event) => {
      const tab = event.target.closest('[role="tab"]');
      if (tab) {
        state.pendingView = null;
        selectView(state.board, tab.dataset.period);
      }
    });
    tabs.addEventListener('keydown', onTabKeydown);
    $('#board-select').addEventListener('change', (event) => {
      state.pendingView = null;
      selectView(event.target.value, state.period);
    });
    $('#refresh-toggle').addEventListener('click', () => setPaused(!state.paused));
    $('#refresh-now').addEventListener('click', () => { loadBoard(); loadHistory(); });
    $('#limit-select').addEventListener('change', (event) => {
      state.limit = Number(event.target.value);
      state.renderedKey = '';
      updateCaption();
      loadBoard();
    });
    $('#board-body').addEventListener('click', (event) => {
      const button = event.target.closest('[data-lookup]');
      if (!button) return;
      $('#player-id').value = button.dataset.lookup;
      lookupPlayer(button.dataset.lookup).then(() => {
        const heading = $('#lookup-result .player-name');
        if (heading) heading.focus({ preventScroll: true });
        $('#lookup-heading').scrollIntoView({ behavior: reducedMotion.matches ? 'auto' : 'smooth', block: 'start' });
      });
    });
    $('#lookup-form').addEventListener('submit', (event) => {
      event.preventDefault();
      lookupPlayer($('#player-id').value);
    });
    $('#admin-signin').addEventListener('click', signIn);
    $('#snapshot-button').addEventListener('click', takeSnapshot);
    $('#seed-form').addEventListener('submit', seedPlayers);
    for (const radio of document.querySelectorAll('input[name="chart-mode"]')) {
      radio.addEventListener('change', () => {
        state.historyMode = radio.value;
        drawChart([...state.history].reverse());
      });
    }
    document.addEventListener('visibilitychange', () => {
      if (document.hidden) clearTimeout(state.timer);
      else if (!state.paused) loadBoard({ background: true });
    });
    window.addEventListener('hashchange', () => openView(location.hash));
    let resizeTimer = null;
    let lastWidth = window.innerWidth;
    window.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        if (window.innerWidth === lastWidth) return;
        lastWidth = window.innerWidth;
        drawChart([...state.history].reverse());
      }, 150);
    });
  }

  async function start() {
    bind();
    await loadConfig();
    setInterval(renderBoardMeta, 15000); // the "resets in" countdown (not a live region: no announcements)
    const { board } = parseHash(location.hash);
    if (isDefault(board)) {
      // The default board is known without the list: show it at once, fill the picker alongside.
      selectView(DEFAULT_BOARD, parseHash(location.hash).period, { load: false, rebuild: true });
      loadBoard();
      loadHistory();
      loadBoards();
    } else {
      await openView(location.hash);
    }
    checkAdmin();
  }

  start();
})();
