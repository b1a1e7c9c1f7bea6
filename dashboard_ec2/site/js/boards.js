/* The boards and their periods, as the API describes them: GET /leaderboards for the picker, GET
 * /leaderboards/{board} when a period of the board on screen has started over. A period's id (`current`)
 * and its next reset always come from the API; the page never works one out from the clock. */

import { api } from './api.js';
import { $, $$ } from './dom.js';
import { parseTime } from './format.js';
import { allPages, request } from './request.js';
import * as state from './state.js';

export const ALL_TIME = 'all-time';
// How the page names the kinds of period; `past` names an earlier period of the kind, `order` sorts a
// player's periods (GET /player) for the lookup. A kind not listed here shows under its own name.
const PERIOD_NAMES = {
  [ALL_TIME]: { label: 'All-Time', order: 0 },
  weekly: { label: 'This Week', past: 'Week', order: 1 },
  daily: { label: 'Today', past: 'Day', order: 2 },
  monthly: { label: 'This Month', past: 'Month', order: 3 },
  tournament: { label: 'Tournament', order: 4 },
};
const REFRESH_MIN_AGE_MS = 15000; // a board's periods are read again at most this often when one rolls over

let listing = null; // the GET /leaderboards in flight, shared by its callers
const refreshing = new Map(); // board_id -> the GET /leaderboards/{board} in flight
const fetchedAt = new Map(); // board_id -> when its periods were last read

/**
 * The default board as the markup shows it before the API answers: the picker's option and the tabs
 * of index.html. The page keeps no other copy of it.
 */
export function startFromMarkup() {
  const option = $('#board-select option');
  state.startWith({
    board_id: option.value,
    name: option.textContent.trim(),
    order: $('#board-order').dataset.order,
    periods: $$('#period-tabs [role="tab"]').map((tab) => ({ period: tab.dataset.period })),
  });
}

/** GET /leaderboards: every board for the picker, page by page. Concurrent callers share one listing. */
export function loadBoards() {
  if (listing) return listing;
  const started = Date.now();
  listing = allPages((cursor) => request(api.boards(cursor)), 'leaderboards')
    // A failure keeps what the picker had; the board's own read shows the error.
    .then(({ data }) => listed(data, started), () => {})
    .finally(() => {
      listing = null;
    });
  return listing;
}

function listed(data, readAt) {
  const boards = new Map();
  for (const board of Array.isArray(data && data.leaderboards) ? data.leaderboards : []) {
    const parsed = parseBoard(board);
    if (!parsed) continue;
    boards.set(parsed.board_id, parsed);
    fetchedAt.set(parsed.board_id, readAt);
  }
  const before = state.boards();
  // The default board, and a board that vanished while on screen, stay in the picker: its reads say what happened.
  for (const id of [state.defaultBoard(), state.view().board]) {
    if (id && !boards.has(id) && before.has(id)) boards.set(id, before.get(id));
  }
  state.listBoards(boards);
}

/** The list again if the API has not given it yet (it was down at start). */
export function loadBoardsIfMissing() {
  if (!state.boardsListed()) loadBoards();
}

/** GET /leaderboards/{board}: a board's periods again (their ids and resets), at most every 15 s. */
export function refreshBoard(id) {
  if (refreshing.has(id)) return refreshing.get(id);
  if (Date.now() - (fetchedAt.get(id) || 0) < REFRESH_MIN_AGE_MS) return Promise.resolve();
  fetchedAt.set(id, Date.now());
  const reading = request(api.board(id))
    .then(({ data }) => parseBoard(data), () => null) // a failure: tried again after 15 s
    .then((board) => {
      if (board) state.updateBoard(board);
    })
    .finally(() => refreshing.delete(id));
  refreshing.set(id, reading);
  return reading;
}

/** Read a board's periods again if one of them has reset since they were read. */
export function refreshIfRolledOver(id) {
  const now = Date.now();
  const due = periodsOf(id).some((period) => {
    const at = Date.parse((periodInfo(id, period) || {}).next_reset || '');
    return !Number.isNaN(at) && at <= now;
  });
  return due ? refreshBoard(id) : Promise.resolve();
}

function parseBoard(board) {
  if (!board || typeof board.board_id !== 'string') return null;
  const periods = (Array.isArray(board.periods) ? board.periods : [])
    .map((p) => (typeof p === 'string' ? { period: p } : p))
    .filter((p) => p && typeof p.period === 'string');
  return periods.length ? { ...board, periods } : null;
}

// ---------------------------------------------------------------- what the views ask

export const isDefault = (id = state.view().board) => id === state.defaultBoard();
export const boardInfo = (id = state.view().board) => state.boards().get(id) || null;
export const boardName = (id = state.view().board) => (boardInfo(id) && boardInfo(id).name) || id;
export const periodsOf = (id = state.view().board) => ((boardInfo(id) || {}).periods || []).map((p) => p.period);
export const periodInfo = (id = state.view().board, period = state.view().period) =>
  ((boardInfo(id) || {}).periods || []).find((p) => p.period === period) || null;
/** {startsAt, endsAt} (Dates) of a tournament board (one period, `tournament`, open in between); else null. */
export function tournamentOf(id = state.view().board) {
  const board = boardInfo(id) || {};
  const startsAt = parseTime(board.starts_at);
  const endsAt = parseTime(board.ends_at);
  return startsAt && endsAt ? { startsAt, endsAt } : null;
}
export const lowerIsBetter = (id = state.view().board) => (boardInfo(id) || {}).order === 'asc';
/** Whether score a ranks ahead of score b on the board. */
export const better = (a, b, id = state.view().board) => (lowerIsBetter(id) ? a < b : a > b);

export const periodLabel = (period) => (PERIOD_NAMES[period] || {}).label || period;
export const periodOrder = (period) => (PERIOD_NAMES[period] || {}).order ?? Object.keys(PERIOD_NAMES).length;

/** A period of any board by its kind and id: "All-Time", "Today (2026-11-30)" (current), "Week 2026-W47", "Tournament". */
export function periodName(kind, periodId, current = false) {
  const names = PERIOD_NAMES[kind] || { label: kind };
  const date = String(periodId || '').startsWith(`${kind}-`) ? periodId.slice(kind.length + 1) : '';
  if (!date) return names.label;
  return current ? `${names.label} (${date})` : `${names.past || names.label} ${date}`;
}

/** "All-Time" on the default board (as before there were others), "Speedrun · This Week" on another. */
export const viewLabel = (id = state.view().board, period = state.view().period) =>
  (isDefault(id) ? periodLabel(period) : `${boardName(id)} · ${periodLabel(period)}`);

/**
 * "All-Time", "Today (2026-11-30)", "Week 2026-W47", ...: one period of the default board as the
 * original routes name it ({leaderboard_id, period}); their leaderboard ids are the board's period ids.
 */
export function periodTitle({ leaderboard_id: id, period }) {
  if (!id || !period || period === ALL_TIME) return (period && periodLabel(period)) || id || '';
  const names = PERIOD_NAMES[period] || { label: period };
  const date = id.startsWith(`${period}-`) ? id.slice(period.length + 1) : id;
  const info = periodInfo(state.defaultBoard(), period);
  return info && info.current === id ? `${names.label} (${date})` : `${names.past || names.label} ${date}`;
}
