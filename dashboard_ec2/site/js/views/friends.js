/* Friends: player ids typed in a field, ranked on the board and period picked (GET /leaderboards/{board}/players
 * ?ids=...), in rank order with their board-wide ranks; the ids not on the board listed apart. The ids typed
 * are checked against the API's own description of a player id and of the largest list (js/contract.js)
 * before any request, and remembered in this browser for the next visit. The list follows the board and
 * period picked. */

import { api } from '../api.js';
import { lowerIsBetter, viewLabel } from '../boards.js';
import { $, h, setStatus } from '../dom.js';
import { fmt, fmtMs, plural } from '../format.js';
import { allPages, latestOnly, Superseded } from '../request.js';
import * as state from '../state.js';

const FRIENDS_KEY = 'leaderboard.friendIds';

const lists = latestOnly();
let ranked = []; // the ids last ranked: ranked again when the board or period changes

export function initFriends() {
  const field = $('#friend-ids');
  field.value = remembered();
  ranked = parseIds(field.value); // ranked once the first board and period are shown
  $('#friends-form').addEventListener('submit', (event) => {
    event.preventDefault();
    rankFriends(field.value);
  });
  state.on('view', ({ changed }) => {
    if (changed && ranked.length) rankFriends(field.value, { quiet: true });
  });
}

/** "a, b  c,a" -> ["a", "b", "c"]: split on commas and spaces, trimmed, a repeat counted once. */
export function parseIds(text) {
  return [...new Set(String(text).split(/[\s,]+/).filter(Boolean))];
}

/** What is wrong with the ids, in words, or '' (limits unknown until the OpenAPI document answered: the API judges). */
function problemWith(ids) {
  const { playerId = {}, friendIds = {} } = state.limits() || {};
  if (!ids.length) return 'Enter one or more player IDs, separated by commas or spaces.';
  if (friendIds.max !== undefined && ids.length > friendIds.max) {
    return `At most ${fmt(friendIds.max)} player IDs at once: ${fmt(ids.length)} given. Remove ${fmt(ids.length - friendIds.max)}.`;
  }
  const bad = ids.filter((id) => (playerId.maxLength !== undefined && id.length > playerId.maxLength)
    || (playerId.pattern && !playerId.pattern.test(id)));
  if (bad.length) {
    const shown = bad.slice(0, 3).map((id) => `“${id.length > 24 ? `${id.slice(0, 24)}…` : id}”`).join(', ');
    const more = bad.length > 3 ? ` and ${bad.length - 3} more` : '';
    const longest = playerId.maxLength !== undefined ? `, up to ${playerId.maxLength} characters` : '';
    return `Not a player ID: ${shown}${more} (letters, digits and _ . : @ -, not only dots${longest}).`;
  }
  return '';
}

/** quiet: a refresh after the board or period changed (no loading message). */
async function rankFriends(text, { quiet = false } = {}) {
  const status = $('#friends-status');
  const result = $('#friends-result');
  const ids = parseIds(text);
  const problem = problemWith(ids);
  if (problem) {
    lists.begin(); // an answer still on its way is for other ids
    ranked = [];
    result.replaceChildren();
    setStatus(status, 'error', problem);
    $('#friend-ids').setAttribute('aria-invalid', 'true');
    return;
  }
  $('#friend-ids').removeAttribute('aria-invalid');
  remember(ids.join(', '));
  ranked = ids;
  const turn = lists.begin();
  const { board, period } = state.view();
  result.setAttribute('aria-busy', 'true');
  if (!quiet) setStatus(status, 'loading', `Ranking ${fmt(ids.length)} ${plural(ids.length, 'player')} on ${viewLabel(board, period)}…`);
  try {
    // Pages: the API ranks as many as its request budget allows per call, the rest follow with next_cursor.
    const { data, ms } = await allPages((cursor) => turn.request(api.friends(board, period, ids, cursor)), 'entries');
    const entries = Array.isArray(data && data.entries) ? data.entries : [];
    render(result, entries, ids, board);
    setStatus(status, entries.length ? 'ok' : 'empty',
      `${fmt(entries.length)} of ${fmt(ids.length)} on ${viewLabel(board, period)}, read in ${fmtMs(ms)}.`);
  } catch (err) {
    if (err instanceof Superseded) return;
    result.replaceChildren();
    setStatus(status, 'error', `${err.message}.`);
  } finally {
    if (turn.current) result.removeAttribute('aria-busy');
  }
}

function render(box, entries, ids, board) {
  const on = new Set(entries.map((e) => e.player_id));
  const missing = ids.filter((id) => !on.has(id));
  box.replaceChildren(...[
    entries.length ? h('ol', { class: 'friend-list neighbour-list', 'data-testid': 'friend-list' }, entries.map((e) =>
      h('li', { 'data-testid': 'friend-row', dataset: { playerId: e.player_id } },
        h('span', { class: 'n-rank', 'data-testid': 'friend-rank' }, `#${fmt(e.rank)}`),
        h('span', { class: 'n-name', 'data-testid': 'friend-name' }, e.player_name || e.player_id,
          e.player_name && e.player_name !== e.player_id ? h('span', { class: 'friend-id' }, ` ${e.player_id}`) : null),
        h('span', { class: 'n-score num', 'data-testid': 'friend-score' }, fmt(e.score))))) : null,
    entries.length && lowerIsBetter(board) ? h('p', { class: 'muted small' }, 'Lower is better on this board.') : null,
    missing.length ? h('p', { class: 'small group-title' }, 'Not on this board') : null,
    missing.length ? h('ul', { class: 'friend-missing muted small', 'data-testid': 'friend-missing' }, missing.map((id) =>
      h('li', { 'data-testid': 'friend-missing-id', dataset: { playerId: id } }, id, h('span', { class: 'visually-hidden' }, ': not on this board')))) : null,
  ].filter(Boolean));
}

/** The ids ranked on an earlier visit (kept in this browser), else none. */
function remembered() {
  try {
    return window.localStorage.getItem(FRIENDS_KEY) || '';
  } catch (_) {
    return ''; // storage blocked: this visit only
  }
}

function remember(text) {
  try {
    window.localStorage.setItem(FRIENDS_KEY, text);
  } catch (_) {
    // storage blocked: remembered for this visit only
  }
}
