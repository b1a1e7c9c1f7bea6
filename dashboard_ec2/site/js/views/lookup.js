/* Player lookup: every period of the default board the player is on (GET /player) and, when another
 * board is picked, their place on it; each with rank of total, score, percentile and the players around
 * them (the around-me route). The lookup follows the board and period picked. */

import { api } from '../api.js';
import {
  boardName, isDefault, lowerIsBetter, periodOrder, periodTitle, refreshIfRolledOver, viewLabel,
} from '../boards.js';
import { $, $$, h, reducedMotion, setStatus } from '../dom.js';
import { fmt, fmtMs, plural } from '../format.js';
import { latestOnly, Superseded } from '../request.js';
import * as state from '../state.js';

const AROUND_WINDOW = 3; // players shown above and below the player

const lookups = latestOnly();
let lookedUp = ''; // the player last looked up: looked up again when the board or period changes

export function initLookup() {
  $('#lookup-form').addEventListener('submit', (event) => {
    event.preventDefault();
    lookup($('#player-id').value);
  });
  state.on('view', ({ changed, boardChanged }) => {
    // The players around them on the board and period picked (the default board's periods do not change).
    if (changed && lookedUp && (boardChanged || !isDefault())) lookup(lookedUp, { quiet: true });
  });
  state.on('rankMode', () => {
    if (lookedUp) lookup(lookedUp, { quiet: true }); // the ranks around them, numbered the new way
  });
}

/** A name clicked in the table: look them up, then bring the result into view. */
export async function lookupFromTable(playerId) {
  $('#player-id').value = playerId;
  await lookup(playerId);
  const heading = $('#lookup-result .player-name');
  if (heading) heading.focus({ preventScroll: true });
  $('#lookup-heading').scrollIntoView({ behavior: reducedMotion.matches ? 'auto' : 'smooth', block: 'start' });
}

const outcome = (promise) => promise.then((answer) => ({ ok: true, ...answer }), (err) => ({ ok: false, err }));

/** quiet: a refresh after the board or period changed (no loading message). */
async function lookup(playerId, { quiet = false } = {}) {
  const id = playerId.trim();
  const status = $('#lookup-status');
  const result = $('#lookup-result');
  if (!id) {
    setStatus(status, 'error', 'Enter a player ID to look up.');
    $('#player-id').focus();
    return;
  }
  const turn = lookups.begin();
  const { board, period } = state.view();
  const defaultBoard = state.defaultBoard();
  lookedUp = id;
  result.setAttribute('aria-busy', 'true');
  if (!quiet) setStatus(status, 'loading', `Looking up “${id}”…`);
  try {
    const [player, picked] = await Promise.all([
      outcome(turn.request(api.player(id))),
      isDefault(board) ? null : outcome(turn.request(api.around(board, period, id, AROUND_WINDOW, state.rankMode()))),
      refreshIfRolledOver(defaultBoard), // which of its periods is the current one
    ]);
    if (!turn.current) return;
    const failure = [player, picked].find((r) => r && !r.ok && r.err.status !== 404);
    if (failure) throw failure.err;
    const boards = player.ok && Array.isArray(player.data.boards) ? player.data.boards : [];
    const onPicked = Boolean(picked && picked.ok);
    if (!boards.length && !onPicked) {
      result.replaceChildren();
      setStatus(status, 'empty', isDefault(board)
        ? `No player with ID “${id}” is on any board yet.`
        : `No player with ID “${id}” is on the ${boardName(defaultBoard)} board or on ${viewLabel(board, period)} yet.`);
      return;
    }
    const found = boards.length + (onPicked ? 1 : 0);
    const ms = Math.max(player.ms || 0, (picked && picked.ms) || 0);
    setStatus(status, 'ok', `Found on ${found} ${plural(found, 'board')} in ${fmtMs(ms)}.`);
    const name = (player.ok && player.data.player_name) || (onPicked && picked.data.player_name) || id;
    renderResult({ id, name, board, period, picked, boards });
    await Promise.all(boards.map((b) => loadAround(turn, b, id)));
  } catch (err) {
    if (err instanceof Superseded || !turn.current) return;
    result.replaceChildren();
    setStatus(status, 'error', `${err.message}.`);
  } finally {
    if (turn.current) result.removeAttribute('aria-busy');
  }
}

function renderResult({ id, name, board, period, picked, boards }) {
  // All-time first, then this week, then today; the newest first within each.
  boards.sort((a, b) => periodOrder(a.period) - periodOrder(b.period) || b.leaderboard_id.localeCompare(a.leaderboard_id));
  const defaultName = boardName(state.defaultBoard());
  const parts = [
    h('h3', { class: 'player-name', tabindex: '-1', 'data-testid': 'player-name' }, name, ' ', h('span', { class: 'player-id' }, id)),
  ];
  if (picked) {
    // The board and period picked above the table first, with the players around them from the same answer.
    const title = viewLabel(board, period);
    if (picked.ok) {
      const card = playerCard(picked.data.leaderboard_id, title, picked.data, { picked: true });
      renderAround($('.neighbours', card), picked.data, id, board);
      parts.push(h('ul', { class: 'player-boards', 'data-testid': 'picked-board' }, card));
    } else {
      parts.push(h('p', { class: 'muted small not-on', 'data-testid': 'picked-board' }, `Not on ${title} yet.`));
    }
    parts.push(h('p', { class: 'group-title small', 'data-testid': 'default-board-title' },
      boards.length ? `On the ${defaultName} board` : `Not on the ${defaultName} board yet.`));
  }
  if (boards.length) {
    parts.push(h('ul', { class: 'player-boards' }, boards.map((b) => playerCard(b.leaderboard_id, periodTitle(b), b))));
  }
  $('#lookup-result').replaceChildren(...parts);
}

/** One board period of the player: rank of total, score, percentile, a meter, and room for the players around. */
function playerCard(key, title, stats, { picked = false } = {}) {
  const pct = Math.max(0, Math.min(100, Number(stats.percentile) || 0));
  const meter = h('div', { class: 'meter', 'aria-hidden': 'true' }, h('span', { class: 'meter-fill' }));
  meter.firstChild.style.width = `${pct}%`; // CSSOM, allowed by the CSP (no style attribute)
  return h('li', { class: ['player-board', picked && 'picked'], dataset: { board: key }, 'data-testid': 'player-board' },
    h('h4', null, title),
    h('dl', { class: 'stats' },
      h('div', null, h('dt', null, 'Rank'), h('dd', { 'data-testid': 'player-rank' }, `#${fmt(stats.rank)}`, h('span', { class: 'muted' }, ` of ${fmt(stats.total_players)}`))),
      h('div', null, h('dt', null, 'Score'), h('dd', { 'data-testid': 'player-score' }, fmt(stats.score))),
      h('div', null, h('dt', null, 'Percentile'), h('dd', { 'data-testid': 'player-percentile' }, `${pct.toFixed(1)}`)),
      // A board with tiers names the player's ("none" below the lowest tier); other boards have no tier.
      'tier' in stats ? h('div', null, h('dt', null, 'Tier'),
        h('dd', { class: 'tier', 'data-testid': 'player-tier', dataset: { tier: stats.tier || '' } }, stats.tier || 'none')) : null),
    meter,
    h('p', { class: 'muted small' }, `Ahead of ${pct.toFixed(1)}% of the ${fmt(stats.total_players)} players on this board.`),
    h('div', { class: 'neighbours', 'data-testid': 'player-neighbours' }, h('p', { class: 'muted small' }, 'Loading the players around them…')));
}

/** The around-me list: the players above, this player, the players below, each with their rank. */
function renderAround(box, data, playerId, board) {
  // The card's rank from GET /player is the unique one; the around-me answer numbers it in the mode picked.
  const rank = box.closest('.player-board') && $('[data-testid=player-rank]', box.closest('.player-board'));
  if (rank && typeof data.rank === 'number') rank.firstChild.textContent = `#${fmt(data.rank)}`;
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

/** The players around them on one period of the default board (its leaderboard id names the period). */
async function loadAround(turn, entry, playerId) {
  const card = $$('#lookup-result .player-board').find((el) => el.dataset.board === entry.leaderboard_id);
  if (!card) return;
  const box = $('.neighbours', card);
  const defaultBoard = state.defaultBoard();
  try {
    const { data } = await turn.request(api.around(defaultBoard, entry.leaderboard_id, playerId, AROUND_WINDOW, state.rankMode()));
    renderAround(box, data, playerId, defaultBoard);
  } catch (err) {
    if (err instanceof Superseded) return;
    box.replaceChildren(h('p', { class: 'error small' }, err.status === 404
      ? 'No longer on this board (the period has ended).'
      : `Could not load the players around them: ${err.message}.`));
  }
}
