/* The top-N table of the board and period on screen: live updates pushed over the WebSocket (js/live.js), polling
 * every 3 s while the socket is down, pause, the time of each read, rows that moved highlighted (and animated unless
 * reduced motion is asked for), the new-leader banner, and the connection indicator in the header.
 *
 * With the socket up, a pushed top (25 entries) is rendered as it is when the table shows at most 25 rows ranked
 * the API's default way; otherwise a push only says "the top changed" and the table reads its page again. While
 * pushes keep the table current the page re-reads it only every 30 s after the last push (a safety net). `?poll=off`
 * turns polling off altogether (the browser tests use it to show that what arrives came over the socket).
 *
 * Reads go through the edge (a shared cache): an answer may be up to the route's max-age + stale-while-revalidate
 * old (its Cache-Control, request.js cacheLagMs). So a pushed top is never replaced by a read that may predate it,
 * a push received while paused is shown on resume, and after a change the page knows of (a push it cannot render,
 * an admin action) the table is read again once that lag has passed, when a read surely shows the change. */

import { api, boardScoresPath } from '../api.js';
import {
  better, isDefault, lowerIsBetter, periodInfo, refreshBoard, viewLabel,
} from '../boards.js';
import { $, h, reducedMotion, setStatus } from '../dom.js';
import { fmt, fmtMs, timeFormat } from '../format.js';
import { latestOnly, Superseded } from '../request.js';
import { follow, isLive, startLive } from '../live.js';
import * as state from '../state.js';

const REFRESH_MS = 3000;
const LIVE_SAFETY_MS = 30000; // a re-read now and then while pushes keep the table current
const LIVE_TOP = 25; // entries a pushed top holds (docs/API.md)
const POLLING_OFF = new URLSearchParams(location.search).get('poll') === 'off';
const TIMING_WINDOW = 20; // the median is of this many reads
const LEADER_BANNER_MS = 8000;

const reads = latestOnly();
const table = {
  limit: 0, // from the select (its default is in the markup)
  paused: false,
  timer: null,
  tick: 0,
  previous: new Map(), // player_id -> {rank, score} as last shown, for this board and period
  renderedKey: '', // what is on screen, to skip a render when nothing changed
  leaders: new Map(), // "board|period" -> {id, name} of the last leader seen there
  timings: [],
  bannerTimer: null,
  lagMs: 0, // how old a read's answer may be (the last answer's Cache-Control): 0 until one has come
  pushedAt: null, // performance.now() of the pushed top on screen (null: the rows came from a read)
  pausedPush: null, // {message, at}: the last top pushed while paused, shown on resume
  followUpAt: null, // a read starting at or after this time shows a change the page knows of
  failing: false, // the last read failed: read again every REFRESH_MS, socket or not, as the status says
};
let hooks = { onLookup() {}, onTick() {}, onAnswer() {} };

/**
 * hooks.onLookup(playerId): a name in the table was clicked; hooks.onTick(tick): an auto-refresh
 * happened; hooks.onAnswer(): the API answered a read (after a failure, it is back).
 */
export function initTable(options) {
  hooks = { ...hooks, ...options };
  table.limit = Number($('#limit-select').value);
  showRefreshState();
  $('#refresh-toggle').addEventListener('click', () => setPaused(!table.paused));
  $('#limit-select').addEventListener('change', (event) => {
    table.limit = Number(event.target.value);
    table.renderedKey = '';
    updateCaption();
    loadTable();
  });
  $('#board-body').addEventListener('click', (event) => {
    const button = event.target.closest('[data-lookup]');
    if (button) hooks.onLookup(button.dataset.lookup);
  });
  document.addEventListener('visibilitychange', () => {
    if (document.hidden) clearTimeout(table.timer);
    else if (!table.paused) loadTable({ background: true });
  });
  state.on('view', onViewShown);
  startLive({ onTop: onPushedTop, onState: onLiveState });
  state.on('admin', () => {
    const status = $('#board-status');
    if (status.dataset.kind === 'empty') setStatus(status, 'empty', emptyBoardMessage());
  });
  state.on('limits', (limits) => offerPageSizes(limits.pageSize));
  const rankMode = $('#rank-mode-select');
  rankMode.value = state.rankMode();
  rankMode.addEventListener('change', (event) => state.setRankMode(event.target.value));
  state.on('rankMode', ({ rankMode: mode }) => {
    rankMode.value = mode;
    table.previous = new Map(); // ranks renumbered by the mode are not moves
    table.renderedKey = '';
    updateCaption();
    loadTable();
  });
}

function onViewShown({ changed }) {
  updateCaption();
  follow(state.view().board, state.view().period);
  if (changed) {
    $('#board-id').textContent = '–'; // until the API names it
    table.pushedAt = null;
    table.pausedPush = null;
    table.followUpAt = null;
    table.previous = new Map();
    table.renderedKey = '';
    $('#board-body').replaceChildren();
    hideLeaderBanner();
  }
  loadTable();
}

function updateCaption() {
  const ties = state.rankMode() === 'competition' ? ', equal scores share a rank' : '';
  $('#board-caption').textContent = `${viewLabel()} leaderboard, top ${table.limit}, ${lowerIsBetter() ? 'lower' : 'higher'} scores are better${ties}`;
}

/** The page sizes the API allows: the markup's choices within its range, and its largest page. */
function offerPageSizes({ min, max } = {}) {
  if (typeof max !== 'number') return;
  const select = $('#limit-select');
  const choices = [...select.options].map((o) => Number(o.value));
  const sizes = [...new Set([...choices, max])].filter((n) => !(n < min) && n <= max).sort((a, b) => a - b);
  const chosen = sizes.includes(table.limit) ? table.limit : sizes.filter((n) => n <= table.limit).pop() || sizes[0];
  if ([...select.options].map((o) => Number(o.value)).join() !== sizes.join()) {
    select.replaceChildren(...sizes.map((n) => h('option', { value: n }, `top ${n}`)));
  }
  select.value = String(chosen);
  if (chosen !== table.limit) {
    table.limit = chosen;
    table.renderedKey = '';
    updateCaption();
    loadTable();
  }
}

/** Whether pushes alone keep the table current: the socket is up and a pushed top holds every row shown. */
function pushesSuffice() {
  return isLive() && table.limit <= LIVE_TOP;
}

function transportText() {
  if (isLive()) return 'Live updates (AppSync Events)';
  return POLLING_OFF ? 'Auto-refresh off' : `Auto-refresh every ${REFRESH_MS / 1000} s`;
}

function showRefreshState() {
  const button = $('#refresh-toggle');
  button.setAttribute('aria-pressed', String(table.paused));
  button.textContent = table.paused ? 'Resume auto-refresh' : 'Pause auto-refresh';
  $('#refresh-state').textContent = table.paused ? 'Auto-refresh paused' : transportText();
  $('#refresh-state').dataset.paused = String(table.paused);
  $('#connection').dataset.transport = isLive() ? 'live' : 'polling';
}

/** The socket came up (pushes from now on) or went down (poll every 3 s until it is back). */
function onLiveState() {
  showRefreshState();
  const indicator = $('#connection');
  if (!table.paused && indicator.dataset.state === 'live') setConnection('live', liveText());
  // One read either way: going down, polling starts from it; coming up, it is the API answering again (what
  // could not be read while it was down is read then), and the next re-read is scheduled from it.
  if (!table.paused) loadTable({ background: true });
}

function liveText() {
  return isLive() ? 'Live' : 'Live (polling)';
}

/** Whether pushed tops are what the table shows: they hold every row shown, ranked the API's default way. */
const pushDriven = () => pushesSuffice() && state.rankMode() === 'unique';

/** A top pushed over the socket for the view on screen (`at`: when it came, for one held while paused). */
function onPushedTop(message, at = performance.now()) {
  if (table.paused) {
    table.pausedPush = { message, at }; // the newest top there is: shown on resume
    return;
  }
  if (pushDriven()) {
    const { board, period } = state.view();
    renderRows(message.entries.slice(0, table.limit), `${board}|${period}`);
    table.pushedAt = at;
    $('#updated-at').textContent = timeFormat.format(new Date());
    setConnection('live', liveText());
    schedule(); // the safety re-read counts from the last push (a read under way that predates it is not shown)
  } else {
    refreshAfterChange(at); // the rows shown are more than a push holds, or ranked another way
  }
}

/**
 * The top changed at `at` (a push the table cannot render, an admin action): read now, and again once the edge's
 * lag has passed, when the read surely shows the change (the first may get the edge's older answer).
 */
export function refreshAfterChange(at = performance.now()) {
  const due = at + table.lagMs;
  if (table.lagMs > 0 && !(table.followUpAt >= due)) table.followUpAt = due;
  if (!table.paused) loadTable({ background: true });
}

function setPaused(paused) {
  table.paused = paused;
  showRefreshState();
  if (paused) {
    clearTimeout(table.timer);
    setConnection('paused', 'Paused');
  } else {
    const held = table.pausedPush;
    table.pausedPush = null;
    loadTable();
    if (held) onPushedTop(held.message, held.at); // what changed meanwhile, as it was pushed
  }
}

function schedule() {
  clearTimeout(table.timer);
  table.timer = null;
  if (table.paused || document.hidden || POLLING_OFF) return;
  // A socket back before the API answers reads (the realtime endpoint may recover first) is no reason to wait
  // LIVE_SAFETY_MS for the next try.
  const live = pushesSuffice() && !table.failing;
  const regular = live ? LIVE_SAFETY_MS : REFRESH_MS;
  const followUp = table.followUpAt === null ? regular : table.followUpAt - performance.now();
  if (followUp < regular) {
    table.timer = setTimeout(() => loadTable({ background: true }), Math.max(0, followUp));
    return;
  }
  table.timer = setTimeout(() => {
    // Each safety re-read stands for the polls it replaces, so the snapshots' reads keep their pace (every ~30 s).
    const step = LIVE_SAFETY_MS / REFRESH_MS;
    table.tick += live ? step - (table.tick % step) : 1;
    loadTable({ background: true });
    hooks.onTick(table.tick);
  }, regular);
}

function setConnection(kind, text) {
  $('#connection').dataset.state = kind;
  $('#connection-text').textContent = text;
}

/** Read the top N of the board and period on screen (the default board through its original route). */
export async function loadTable({ background = false } = {}) {
  clearTimeout(table.timer);
  const turn = reads.begin();
  const { board, period } = state.view();
  const status = $('#board-status');
  const tableEl = $('#board-table');
  if (!table.renderedKey && !background) {
    tableEl.setAttribute('aria-busy', 'true');
    setStatus(status, 'loading', `Loading the ${viewLabel()} board…`);
  }
  const mode = state.rankMode();
  const url = isDefault(board) ? api.leaderboard(period, table.limit, mode) : api.top(board, period, table.limit, mode);
  const startedAt = performance.now();
  try {
    const { data, ms, lagMs } = await turn.request(url);
    table.lagMs = lagMs;
    if (table.followUpAt !== null && startedAt >= table.followUpAt) table.followUpAt = null; // it shows the change
    if (data && data.leaderboard_id) {
      $('#board-id').textContent = data.leaderboard_id;
      // A period that has started over since the board's periods were read: read them again (next reset).
      const info = periodInfo(board, period);
      const current = data.period_id || data.leaderboard_id; // the original route's ids are the period ids
      if (info && info.current && info.current !== current) refreshBoard(board);
    }
    // The answer may be up to lagMs old: it replaces a pushed top only if it surely came after it.
    const olderThanPush = pushDriven() && table.pushedAt !== null && startedAt - lagMs < table.pushedAt;
    if (!olderThanPush) {
      renderRows(Array.isArray(data && data.entries) ? data.entries : [], `${board}|${period}`);
      table.pushedAt = null;
    }
    recordTiming(ms);
    table.failing = false;
    setConnection(table.paused ? 'paused' : 'live', table.paused ? 'Paused' : liveText());
    hooks.onAnswer();
  } catch (err) {
    if (err instanceof Superseded) return;
    table.failing = true;
    const stale = table.renderedKey ? ` Showing the data from ${$('#updated-at').textContent}.` : '';
    setStatus(status, 'error', `${err.message}.${stale} Retrying every ${REFRESH_MS / 1000} s.`);
    tableEl.dataset.stale = String(Boolean(table.renderedKey));
    setConnection('error', err.status === 0 || err.status >= 502 ? 'API unreachable' : 'API error');
  } finally {
    if (turn.current) {
      tableEl.removeAttribute('aria-busy');
      schedule();
    }
  }
}

function recordTiming(ms) {
  table.timings.push(ms);
  if (table.timings.length > TIMING_WINDOW) table.timings.shift();
  const sorted = [...table.timings].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  $('#query-time').textContent = fmtMs(ms);
  $('#query-median').textContent = fmtMs(median);
  $('#timing-count').textContent = String(table.timings.length);
  $('#updated-at').textContent = timeFormat.format(new Date());
}

function renderRows(entries, viewKey) {
  const status = $('#board-status');
  const body = $('#board-body');
  const tableEl = $('#board-table');
  tableEl.dataset.stale = 'false';
  const key = JSON.stringify(entries.map((e) => [e.player_id, e.rank, e.score, e.player_name]));
  if (key === table.renderedKey) {
    if (status.dataset.kind !== 'empty') setStatus(status, '', '');
    return;
  }
  table.renderedKey = key;

  if (entries.length === 0) {
    body.replaceChildren(h('tr', { class: 'empty-row' }, h('td', { colspan: 3 }, 'No scores yet.')));
    setStatus(status, 'empty', emptyBoardMessage());
    table.previous = new Map();
    tableEl.dataset.count = '0';
    return;
  }
  setStatus(status, '', '');

  // FLIP: remember where each player's row was, render, then animate from there.
  const before = new Map();
  for (const row of body.rows) if (row.dataset.playerId) before.set(row.dataset.playerId, row.getBoundingClientRect().top);
  const focusedId = document.activeElement && body.contains(document.activeElement)
    ? document.activeElement.dataset.lookup
    : null;
  const rows = entries.map((entry) => row(entry, table.previous));
  body.replaceChildren(...rows);
  tableEl.dataset.count = String(entries.length);

  if (!reducedMotion.matches && before.size) {
    for (const tr of rows) {
      const top = before.get(tr.dataset.playerId);
      if (top === undefined) continue;
      const delta = top - tr.getBoundingClientRect().top;
      if (Math.abs(delta) < 1) continue;
      tr.animate([{ transform: `translateY(${delta}px)` }, { transform: 'translateY(0)' }], {
        duration: 650, easing: 'cubic-bezier(.2,.8,.2,1)',
      });
    }
  }
  if (focusedId) {
    const again = body.querySelector(`[data-lookup="${CSS.escape(focusedId)}"]`);
    if (again) again.focus({ preventScroll: true });
  }

  table.previous = new Map(entries.map((e) => [e.player_id, { rank: e.rank, score: e.score }]));
  announceLeader(entries[0], viewKey);
}

/** One row: rank, name (a button that looks the player up), how it moved, score. */
function row(entry, previous) {
  const old = previous.get(entry.player_id);
  const classes = ['row'];
  let change = null; // {kind: "new" | "up" | "down", places}
  if (previous.size > 0 && !old) {
    classes.push('entered');
    change = { kind: 'new' };
  } else if (old && entry.rank < old.rank) {
    classes.push('moved-up');
    change = { kind: 'up', places: old.rank - entry.rank };
  } else if (old && entry.rank > old.rank) {
    classes.push('moved-down');
    change = { kind: 'down', places: entry.rank - old.rank };
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
      change ? h('span', { class: `change ${change.kind}`, 'data-testid': 'row-change' },
        change.kind === 'new' ? 'new' : `${change.kind === 'up' ? '▲' : '▼'} ${change.places}`,
        h('span', { class: 'visually-hidden' }, change.kind === 'new' ? ' entered the board' : ' places')) : null),
    h('td', { class: 'num score', 'data-testid': 'row-score' }, fmt(entry.score)));
}

function emptyBoardMessage() {
  if (!isDefault()) {
    return `No scores on ${viewLabel()} yet — they appear here as soon as a game submits one `
      + `(POST ${boardScoresPath(state.view().board)} with the API key).`;
  }
  return state.signedIn()
    ? 'No scores yet on this board — seed some with “Seed players” in the Admin panel.'
    : 'No scores yet on this board — seed some: sign in as admin, then use “Seed players” (or submit scores to the API).';
}

// ---------------------------------------------------------------- the new-leader banner (a polite live region)

function announceLeader(leader, viewKey) {
  const was = table.leaders.get(viewKey);
  const now = { id: leader.player_id, name: leader.player_name || leader.player_id };
  table.leaders.set(viewKey, now);
  if (was && was.id !== now.id) {
    showLeaderBanner(`New leader on ${viewLabel()}: ${now.name} (${fmt(leader.score)}), ahead of ${was.name}`);
  }
}

function showLeaderBanner(text) {
  const banner = $('#leader-banner');
  banner.textContent = `★ ${text}`;
  banner.hidden = false;
  banner.classList.remove('flash');
  void banner.offsetWidth; // restart the CSS animation
  banner.classList.add('flash');
  clearTimeout(table.bannerTimer);
  table.bannerTimer = setTimeout(hideLeaderBanner, LEADER_BANNER_MS);
}

function hideLeaderBanner() {
  clearTimeout(table.bannerTimer);
  const banner = $('#leader-banner');
  banner.hidden = true;
  banner.textContent = '';
}
