/* For a signed-in admin: the players hidden on the board on screen (GET .../hidden through Nginx, which adds the
 * key), a page at a time in player-id order, each with a button that shows them again. */

import { admin } from '../api.js';
import { boardName } from '../boards.js';
import { $, h, setStatus } from '../dom.js';
import { dateTimeFormat, fmt, parseTime, plural } from '../format.js';
import { latestOnly, request, Superseded } from '../request.js';
import * as state from '../state.js';

const PAGE = 10; // players a page of the list shows (the API takes up to 100)
const turns = latestOnly();
let listed = { board: null, count: 0, cursor: null };
let hooks = { afterShow() {} };

/** hooks.afterShow(board, playerId): a player was shown again from the list. */
export function initHidden(options) {
  hooks = { ...hooks, ...options };
  $('#hidden-more').addEventListener('click', () => loadHidden({ more: true }));
  state.on('view', () => {
    if (state.view().board !== listed.board) loadHidden();
  });
  state.on('admin', () => loadHidden());
}

/** The first page again (or, with `more`, the next one) for the board on screen; hidden when signed out. */
export async function loadHidden({ more = false } = {}) {
  const box = $('#hidden-players');
  const { board } = state.view();
  if (!state.signedIn() || !board) {
    box.hidden = true;
    listed = { board: null, count: 0, cursor: null };
    return;
  }
  box.hidden = false;
  $('#hidden-board').textContent = boardName(board);
  const status = $('#hidden-status');
  const turn = turns.begin();
  setStatus(status, 'loading', more ? 'Loading more…' : 'Loading…');
  try {
    const cursor = more && listed.board === board ? listed.cursor : undefined;
    const { data } = await turn.request(admin.hiddenList(board, PAGE, cursor));
    const rows = data.players.map((player) => row(board, player));
    if (cursor) $('#hidden-list').append(...rows);
    else $('#hidden-list').replaceChildren(...rows);
    listed = { board, count: (cursor ? listed.count : 0) + rows.length, cursor: data.next_cursor || null };
    $('#hidden-more').hidden = !listed.cursor;
    setStatus(status, 'ok', listed.count
      ? `${fmt(listed.count)} ${plural(listed.count, 'player')} hidden${listed.cursor ? ' so far: more below' : ''}.`
      : 'Nobody is hidden on this board.');
  } catch (err) {
    if (err instanceof Superseded) return;
    if (err.status === 401) state.setSignedIn(false);
    setStatus(status, 'error', `${err.message}.`);
  }
}

function row(board, { player_id: playerId, hidden_at: hiddenAt }) {
  const when = parseTime(hiddenAt);
  const button = h('button', { type: 'button', class: 'button secondary', 'data-testid': 'hidden-show' }, 'Show again');
  const item = h('li', { class: 'hidden-row', 'data-testid': 'hidden-row', dataset: { playerId } },
    h('span', { class: 'player-id', 'data-testid': 'hidden-player' }, playerId), ' ',
    h('span', { class: 'muted small' }, when ? `hidden ${dateTimeFormat.format(when)}` : ''), ' ', button);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await request(admin.hidden(board, playerId), { method: 'DELETE' });
      hooks.afterShow(board, playerId);
      await loadHidden();
    } catch (err) {
      if (err.status === 401) state.setSignedIn(false);
      setStatus($('#hidden-status'), 'error', `${err.message}.`);
      button.disabled = false;
    }
  });
  return item;
}
