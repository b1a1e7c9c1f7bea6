/* Player lookup: every board and current period the player is on (GET /players/{id}/boards, one request),
 * the board and period picked first; each with rank of total, score, percentile and the players around
 * them (the around-me route), and, for a signed-in admin, the player's scores the board's rules hold back for review
 * (the review queue of that player: no public read shows them).
 * The lookup follows the board and period picked. A signed-in admin can hide
 * the player on the board picked, or show them again (through Nginx, which adds the admin key).
 *
 * Reads go through the edge, whose answers may be up to max-age + stale-while-revalidate old: after hiding or
 * showing a player the page knows the new state before the edge does, so it shows that state until a read that
 * surely came after the change, and looks the player up again then. */

import { admin, api } from '../api.js';
import { boardName, lowerIsBetter, periodName, periodOrder, viewLabel } from '../boards.js';
import { $, focusUnmoved, h, reducedMotion, setStatus } from '../dom.js';
import { dateTimeFormat, fmt, fmtMs, parseTime, plural } from '../format.js';
import { allPages, latestOnly, request, Superseded } from '../request.js';
import * as state from '../state.js';

const AROUND_WINDOW = 3; // players shown above and below the player
const MAX_AROUND = 12; // board periods whose players around them are read with a lookup (one request each)

const lookups = latestOnly();
let lookedUp = ''; // the player last looked up: looked up again when the board or period changes
let lagMs = 0; // how old a lookup's answers may be (their Cache-Control)
const moderated = new Map(); // "board|player" -> {hidden, until}: a change made here, until reads surely show it
let hooks = { afterModeration() {} };

/**
 * The player was hidden on the board (or shown again) from this page: the lookup says so at once, and looks them
 * up again once the edge's answers surely show it (their ranks, totals, the players around them).
 */
export function noteModeration(board, playerId, hidden) {
  const until = performance.now() + lagMs;
  moderated.set(`${board}|${playerId}`, { hidden, until });
  if (lagMs > 0) setTimeout(() => lookupAgain(playerId), lagMs + 100);
  lookupAgain(playerId);
}

/** Whether the player is hidden on the board: as the answer says, unless a change made here is newer. */
function hiddenNow(board, playerId, answered, startedAt) {
  const key = `${board}|${playerId}`;
  const known = moderated.get(key);
  if (!known) return answered;
  if (startedAt >= known.until) {
    moderated.delete(key);
    return answered;
  }
  return known.hidden;
}

/** hooks.afterModeration(board, playerId): the player looked up was hidden or shown. */
export function initLookup(options) {
  hooks = { ...hooks, ...options };
  $('#lookup-form').addEventListener('submit', (event) => {
    event.preventDefault();
    lookup($('#player-id').value);
  });
  state.on('view', ({ changed }) => {
    if (changed && lookedUp) lookup(lookedUp, { quiet: true }); // the board and period picked come first
  });
  state.on('rankMode', () => {
    if (lookedUp) lookup(lookedUp, { quiet: true }); // the ranks around them, numbered the new way
  });
  state.on('admin', () => {
    syncModeration();
    if (lookedUp) lookup(lookedUp, { quiet: true }); // signed in or out: held scores are the admin's to see
  });
}

/** The player on screen again, as others now see them, if it is `playerId` (e.g. shown again elsewhere). */
export function lookupAgain(playerId) {
  if (lookedUp === playerId) lookup(playerId, { quiet: true });
}

/** A name clicked in the table: look them up, then bring the result into view unless the user has moved on. */
export async function lookupFromTable(playerId) {
  $('#player-id').value = playerId;
  const clicked = document.activeElement;
  await lookup(playerId);
  if (!focusUnmoved(clicked)) return;
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
  const startedAt = performance.now();
  lookedUp = id;
  result.setAttribute('aria-busy', 'true');
  if (!quiet) setStatus(status, 'loading', `Looking up “${id}”…`);
  try {
    // Every board and current period they are on in one request, and the players around them on the one picked.
    const [all, picked, queued] = await Promise.all([
      outcome(allPages((cursor) => turn.request(api.playerBoards(id, cursor)), 'boards')),
      outcome(turn.request(api.around(board, period, id, AROUND_WINDOW, state.rankMode()))),
      state.signedIn() ? outcome(turn.request(admin.pendingOf(board, id))) : null,
    ]);
    if (!turn.current) return;
    const failure = [all, picked].find((r) => !r.ok && r.err.status !== 404);
    if (failure) throw failure.err;
    const rows = all.ok && Array.isArray(all.data.boards) ? all.data.boards : [];
    const held = heldBack(queued);
    if (!rows.length && !picked.ok && !held.length) {
      result.replaceChildren();
      setStatus(status, 'empty', `No player with ID “${id}” is on any board yet.`);
      return;
    }
    const boardCount = new Set(rows.map((r) => r.board_id)).size || 1;
    const periodCount = Math.max(rows.length, 1);
    const ms = Math.max(all.ms || 0, picked.ms || 0);
    const waiting = `${held.length} ${plural(held.length, 'score')} pending review on ${boardName(board)}`;
    setStatus(status, 'ok', !rows.length && !picked.ok
      ? `Not ranked on any board yet; ${waiting}.`
      : `Found on ${boardCount} ${plural(boardCount, 'board')}, ${periodCount} ${plural(periodCount, 'period')}, in ${fmtMs(ms)}${held.length ? `; ${waiting}` : ''}.`);
    const name = (picked.ok && picked.data.player_name) || id;
    if (picked.ok) lagMs = picked.lagMs;
    const hidden = hiddenNow(board, id, picked.ok && picked.data.hidden === true, startedAt);
    const others = renderResult({ id, name, board, period, picked, rows, hidden, held });
    await Promise.all(others.map(({ card, row }) => loadAround(turn, card, row, id)));
  } catch (err) {
    if (err instanceof Superseded || !turn.current) return;
    result.replaceChildren();
    setStatus(status, 'error', `${err.message}.`);
  } finally {
    if (turn.current) result.removeAttribute('aria-busy');
  }
}

/** The player's scores the board's rules hold back for review: the admin's queue of that player (none signed out). */
function heldBack(queued) {
  return queued && queued.ok && Array.isArray(queued.data.pending) ? queued.data.pending : [];
}

const cardTitle = (row) => `${boardName(row.board_id)} · ${periodName(row.period, row.period_id, true)}`;

/**
 * The board and period picked first (its players around them come with it), then every other board period,
 * the default board first, then by board name, all-time before the shorter periods. Returns the cards that
 * still need their players around them: {card, row}.
 */
function renderResult({ id, name, board, period, picked, rows, hidden, held }) {
  const defaultBoard = state.defaultBoard();
  const isPicked = (r) => r.board_id === board && r.period === period;
  const others = rows.filter((r) => !isPicked(r)).sort((a, b) =>
    (b.board_id === defaultBoard) - (a.board_id === defaultBoard)
    || boardName(a.board_id).localeCompare(boardName(b.board_id))
    || periodOrder(a.period) - periodOrder(b.period));
  const parts = [
    h('h3', { class: 'player-name', tabindex: '-1', 'data-testid': 'player-name' }, name, ' ', h('span', { class: 'player-id' }, id)),
  ];
  const title = viewLabel(board, period);
  if (picked.ok) {
    const card = playerCard(`${board}/${period}`, title, picked.data, { picked: true });
    renderAround($('.neighbours', card), picked.data, id, board);
    parts.push(h('ul', { class: 'player-boards', 'data-testid': 'picked-board' }, card));
  } else {
    parts.push(h('p', { class: 'muted small not-on', 'data-testid': 'picked-board' }, `Not on ${title} yet.`));
  }
  const pending = others.map((row, i) => ({ row, card: playerCard(`${row.board_id}/${row.period}`, cardTitle(row), row, { around: i < MAX_AROUND }) }));
  parts.push(h('p', { class: 'group-title small', 'data-testid': 'other-boards-title' },
    others.length ? (picked.ok ? 'Also on' : 'On') : 'On no other board or period.'));
  if (others.length) parts.push(h('ul', { class: 'player-boards', 'data-testid': 'other-boards' }, pending.map((p) => p.card)));
  parts.splice(1, 0, moderation(id, board, hidden));
  if (held.length) parts.splice(2, 0, pendingReview(board, held));
  $('#lookup-result').replaceChildren(...parts);
  syncModeration();
  return pending.slice(0, MAX_AROUND);
}

/** Their scores held back on the board picked: "pending review", the score, the rule that fired, when. */
function pendingReview(board, held) {
  return h('div', { class: 'own-pending', 'data-testid': 'player-pending' },
    h('p', { class: 'group-title small' }, `Pending review on ${boardName(board)}`),
    h('ul', { class: 'own-pending-list' }, held.map((item) => {
      const when = parseTime(item.submitted_at);
      return h('li', { class: 'own-pending-row', 'data-testid': 'player-pending-row', dataset: { pendingId: item.pending_id } },
        h('span', { class: 'pending-tag' }, 'pending review'),
        h('strong', { class: 'num', 'data-testid': 'player-pending-score' }, fmt(item.score)),
        h('span', { class: 'rule-chip', 'data-testid': 'player-pending-rule', title: 'The board’s rule that held it back' }, item.rule),
        when ? h('span', { class: 'muted small' }, `submitted ${dateTimeFormat.format(when)}`) : null);
    })),
    h('p', { class: 'muted small' }, 'Held back by the board’s plausibility rules until a reviewer approves them: on no list, rank or total meanwhile.'));
}

/** Hide or show the player on the board picked (every period of it): for a signed-in admin. */
function moderation(playerId, board, hidden) {
  const button = h('button', { type: 'button', class: 'button secondary', id: 'moderation-button', 'data-testid': 'moderation-button' },
    hidden ? `Show again on ${boardName(board)}` : `Hide on ${boardName(board)}`);
  const status = h('span', { class: 'status small', role: 'status', 'aria-live': 'polite', 'data-testid': 'moderation-status' });
  button.addEventListener('click', async () => {
    button.disabled = true;
    setStatus(status, 'loading', hidden ? 'Showing…' : 'Hiding…');
    try {
      await request(admin.hidden(board, playerId), { method: hidden ? 'DELETE' : 'PUT' });
      hooks.afterModeration(board, playerId);
      noteModeration(board, playerId, !hidden); // their cards as others now see them
    } catch (err) {
      if (err instanceof Superseded) return;
      if (err.status === 401) state.setSignedIn(false);
      setStatus(status, 'error', `${err.message}.`);
      syncModeration();
    }
  });
  return h('div', { class: ['moderation', hidden && 'is-hidden'], 'data-testid': 'moderation' },
    hidden ? h('p', { class: 'hidden-note small', 'data-testid': 'player-hidden' },
      `Hidden on ${boardName(board)}: other players do not see them in any list, rank or total.`) : null,
    button, ' ', status,
    h('p', { class: 'muted small admin-only-hint' }, 'Hiding and showing need the admin sign-in (Admin panel).'));
}

function syncModeration() {
  const button = $('#moderation-button');
  if (!button) return;
  button.disabled = !state.signedIn();
  const hint = $('#lookup-result .admin-only-hint');
  if (hint) hint.hidden = state.signedIn();
}

/** One board period of the player: rank of total, score, percentile, a meter, and room for the players around. */
function playerCard(key, title, stats, { picked = false, around = true } = {}) {
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
    h('div', { class: 'neighbours', 'data-testid': 'player-neighbours' }, h('p', { class: 'muted small' }, around
      ? 'Loading the players around them…' : 'Pick this board and period above to see the players around them.')));
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

/** The players around them on one board period of the list (its current period, by kind). */
async function loadAround(turn, card, row, playerId) {
  const box = $('.neighbours', card);
  try {
    const { data } = await turn.request(api.around(row.board_id, row.period, playerId, AROUND_WINDOW, state.rankMode()));
    renderAround(box, data, playerId, row.board_id);
    const name = $('#lookup-result .player-name');
    if (name && data.player_name && name.firstChild.textContent === playerId) name.firstChild.textContent = data.player_name;
  } catch (err) {
    if (err instanceof Superseded) return;
    box.replaceChildren(h('p', { class: 'error small' }, err.status === 404
      ? 'No longer on this board (the period has ended).'
      : `Could not load the players around them: ${err.message}.`));
  }
}
