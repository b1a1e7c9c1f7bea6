/* The board picker and the period tabs: which board and period are on screen, the URL that keeps them
 * (#weekly on the default board, #speedrun/weekly on another), "lower is better" and the time to the
 * period's reset. Tabs follow the ARIA tabs pattern: arrow keys, Home and End; only the selected tab is
 * in the tab order. */

import {
  ALL_TIME, boardInfo, isDefault, loadBoards, lowerIsBetter, periodInfo, periodLabel, periodsOf, refreshBoard,
  tournamentOf,
} from '../boards.js';
import { $, $$, h } from '../dom.js';
import { fmtDuration, parseTime, utcFormat } from '../format.js';
import * as state from '../state.js';
import { tournamentCountdown, tournamentState } from './tournament.js';

const COUNTDOWN_MS = 15000; // the "resets in" line is redrawn this often (not a live region: no announcements)
const TOURNAMENT_COUNTDOWN_MS = 1000; // a tournament's countdown ticks by the second

let metaTimer = null;

let pendingView = null; // a linked board not listed yet (the API was down at start): opened once the list arrives

export function initPicker() {
  const tabs = $('#period-tabs');
  tabs.addEventListener('click', (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (tab) pick(state.view().board, tab.dataset.period);
  });
  tabs.addEventListener('keydown', onTabKeydown);
  $('#board-select').addEventListener('change', (event) => pick(event.target.value, state.view().period));
  window.addEventListener('hashchange', () => openFromHash(location.hash));
  state.on('boards', onBoardsListed);
}

/** A view from the URL; a board not listed yet waits for the list (or, if the API is down, for its return). */
export async function openFromHash(hash) {
  const { board, period } = parseHash(hash);
  if (!boardInfo(board) && !state.boardsListed()) await loadBoards();
  pendingView = !boardInfo(board) && !state.boardsListed() ? { board, period } : null;
  select(board, period);
}

function pick(board, period, options) {
  pendingView = null;
  select(board, period, options);
}

/** Show a board and period (an unknown board: the default; a period the board does not keep: its first). */
function select(board, period, { focus = false } = {}) {
  if (!boardInfo(board)) board = state.defaultBoard();
  const periods = periodsOf(board);
  if (!periods.includes(period)) period = periods.includes(state.view().period) ? state.view().period : periods[0];
  $('#board-select').value = board;
  if (board !== state.view().board || tabPeriods().join() !== periods.join()) renderTabs(periods);
  for (const tab of $$('#period-tabs [role="tab"]')) {
    const selected = tab.dataset.period === period;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    if (selected && focus) tab.focus();
  }
  $('#board-panel').setAttribute('aria-labelledby', `tab-${period}`);
  const hash = isDefault(board) ? `#${period}` : `#${encodeURIComponent(board)}/${period}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  state.showView(board, period);
  renderMeta();
}

function parseHash(hash) {
  let raw = String(hash || '').replace(/^#/, '');
  try {
    raw = decodeURIComponent(raw);
  } catch (_) {
    raw = '';
  }
  const slash = raw.indexOf('/');
  if (slash < 0) return { board: state.defaultBoard(), period: raw || ALL_TIME };
  return { board: raw.slice(0, slash) || state.defaultBoard(), period: raw.slice(slash + 1) || ALL_TIME };
}

/** The list arrived (or one board was read again): picker options, a waiting link, the tabs, the reset. */
function onBoardsListed() {
  renderOptions();
  const { board, period } = state.view();
  const waiting = pendingView;
  pendingView = null;
  if (waiting && boardInfo(waiting.board)) select(waiting.board, waiting.period);
  else if (!periodsOf(board).includes(period)) select(board, period);
  else if (tabPeriods().join() !== periodsOf(board).join()) {
    renderTabs(periodsOf(board));
    for (const tab of $$('#period-tabs [role="tab"]')) {
      tab.setAttribute('aria-selected', String(tab.dataset.period === period));
      tab.tabIndex = tab.dataset.period === period ? 0 : -1;
    }
  }
  renderMeta();
}

function renderOptions() {
  const select = $('#board-select');
  const options = [...state.boards().values()].map((board) =>
    h('option', { value: board.board_id, selected: board.board_id === state.view().board ? true : null },
      board.name && board.name !== board.board_id ? board.name : board.board_id));
  const same = select.options.length === options.length
    && options.every((o, i) => select.options[i].value === o.value && select.options[i].textContent === o.textContent);
  if (!same) select.replaceChildren(...options);
  select.value = state.view().board;
}

const tabPeriods = () => $$('#period-tabs [role="tab"]').map((t) => t.dataset.period);

/** One tab per period the board keeps, in the board's order. */
function renderTabs(periods) {
  $('#period-tabs').replaceChildren(...periods.map((period) =>
    h('button', {
      type: 'button', role: 'tab', id: `tab-${period}`, 'data-testid': `tab-${period}`, dataset: { period },
      'aria-controls': 'board-panel', 'aria-selected': 'false', tabindex: '-1',
    }, periodLabel(period))));
}

function onTabKeydown(event) {
  const tabs = $$('#period-tabs [role="tab"]');
  const index = tabs.indexOf(event.target);
  if (index < 0) return;
  let next = null;
  if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = tabs[(index + 1) % tabs.length];
  else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = tabs[(index - 1 + tabs.length) % tabs.length];
  else if (event.key === 'Home') next = tabs[0];
  else if (event.key === 'End') next = tabs[tabs.length - 1];
  if (!next) return;
  event.preventDefault();
  pick(state.view().board, next.dataset.period, { focus: true });
}

/** "Lower is better" for asc boards, and the time left until the period starts over (UTC) or, on a
 * tournament, until it starts or ends. Redrawn on a timer: every second while a tournament counts down. */
function renderMeta() {
  clearTimeout(metaTimer);
  const ticking = showMeta();
  metaTimer = setTimeout(renderMeta, ticking ? TOURNAMENT_COUNTDOWN_MS : COUNTDOWN_MS);
}

/** Whether what it shows counts down by the second. */
function showMeta() {
  const { board, period } = state.view();
  const asc = lowerIsBetter(board);
  const order = $('#board-order');
  order.dataset.order = asc ? 'asc' : 'desc';
  order.replaceChildren(h('span', { 'aria-hidden': 'true' }, asc ? '↓ ' : '↑ '), asc ? 'Lower is better' : 'Higher is better');
  const reset = $('#board-reset');
  if (period === ALL_TIME) {
    reset.dataset.reset = 'never';
    reset.replaceChildren('All-time: never resets');
    return false;
  }
  const tournament = tournamentOf(board);
  if (tournament) {
    reset.dataset.reset = tournament.endsAt.toISOString();
    reset.replaceChildren(tournamentCountdown(tournament));
    return tournamentState(tournament) !== 'ended';
  }
  const info = periodInfo(board, period);
  const at = info && info.next_reset ? parseTime(info.next_reset) : null;
  if (!at) {
    reset.dataset.reset = 'unknown';
    reset.replaceChildren();
    return false;
  }
  const left = at.getTime() - Date.now();
  reset.dataset.reset = at.toISOString();
  if (left <= 0) {
    reset.replaceChildren(`${periodLabel(period)} is starting over…`);
    refreshBoard(board);
    return false;
  }
  const when = h('time', { datetime: at.toISOString() }, utcFormat.format(at), ' UTC');
  reset.replaceChildren(`Resets in ${fmtDuration(left)}`, h('span', { class: 'muted' }, ' · '), when);
  return false;
}
