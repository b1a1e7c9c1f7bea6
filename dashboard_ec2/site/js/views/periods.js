/* The periods of the board on screen (GET /leaderboards/{board}/periods), newest first: the open ones with
 * the time to their end, the closed ones with when they closed and how many played. Picking a closed period
 * shows its closing summary (GET .../periods/{period_id}): the final top, each tier's cut-off, the reward
 * winners. The closing runs a few minutes after an end (seconds locally): an ended period still open reads
 * "closing…" and the list is read again until it has closed. */

import { api } from '../api.js';
import { boardInfo, boardName, lowerIsBetter, periodName } from '../boards.js';
import { $, focusUnmoved, h, setStatus } from '../dom.js';
import { dateTimeFormat, fmt, fmtDuration, parseTime, plural, utcFormat } from '../format.js';
import { latestOnly, Superseded } from '../request.js';
import * as state from '../state.js';

const REFRESH_MS = 30000; // the list is read again this often
const CLOSING_POLL_MS = 3000; // ...and this often while an ended period awaits its closing
const SUMMARY_ROWS = 10; // the final top shown (the summary keeps up to 100)

const lists = latestOnly();
const summaries = latestOnly();
const shown = { board: '', periods: [], picked: '', timer: null };

export function initPeriods() {
  $('#periods-list').addEventListener('click', (event) => {
    const button = event.target.closest('[data-pick]');
    if (button) pickPeriod(button.dataset.pick);
  });
  state.on('view', ({ boardChanged }) => {
    if (!boardChanged && shown.board) return; // the periods belong to the board, not to the tab
    shown.picked = '';
    shown.periods = [];
    $('#periods-list').replaceChildren();
    hideSummary();
    loadPeriods();
  });
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) loadPeriods({ background: true });
  });
}

/** GET /leaderboards/{board}/periods for the board on screen. background: a timed re-read (no loading message). */
export async function loadPeriods({ background = false } = {}) {
  clearTimeout(shown.timer);
  const turn = lists.begin();
  const { board } = state.view();
  shown.board = board;
  $('#periods-board').textContent = boardName(board);
  const status = $('#periods-status');
  if (!background) setStatus(status, 'loading', `Loading the periods of ${boardName(board)}…`);
  try {
    const { data } = await turn.request(api.periods(board));
    shown.periods = Array.isArray(data && data.periods) ? data.periods : [];
    renderList();
    const closed = shown.periods.filter((p) => p.status === 'closed').length;
    if (closed) setStatus(status, '', '');
    else setStatus(status, 'empty', 'No closed periods yet: a period’s final standings appear here once it has ended and closed.');
  } catch (err) {
    if (err instanceof Superseded) return;
    setStatus(status, 'error', `Could not load the periods: ${err.message}.`);
  } finally {
    if (turn.current && !document.hidden) shown.timer = setTimeout(() => loadPeriods({ background: true }), nextReadIn());
  }
}

/** Soon after an open period's end (or every 3 s while one awaits its closing), else every 30 s. */
function nextReadIn(now = Date.now()) {
  let wait = REFRESH_MS;
  for (const p of shown.periods) {
    const end = p.status !== 'closed' && parseTime(p.ends_at);  // open, upcoming or ended: not closed yet
    if (!end) continue;
    const left = end.getTime() - now;
    wait = Math.min(wait, left <= 0 ? CLOSING_POLL_MS : left + CLOSING_POLL_MS);
  }
  return wait;
}

const at = (date) => h('time', { datetime: date.toISOString() }, utcFormat.format(date), ' UTC');
const dot = () => h('span', { class: 'muted' }, ' · ');

function renderList() {
  const now = Date.now();
  $('#periods-list').replaceChildren(...shown.periods.map((p) => {
    const open = p.status !== 'closed';  // no summary yet (open, upcoming, or ended and awaiting its closing)
    const start = parseTime(p.starts_at);
    const name = periodName(p.kind, p.period_id, open);
    const end = parseTime(p.ends_at);
    const closedAt = parseTime(p.closed_at);
    const players = typeof p.total_players === 'number' ? [dot(), `${fmt(p.total_players)} ${plural(p.total_players, 'player')}`] : [];
    let when;
    if (!open) when = ['Closed ', closedAt ? at(closedAt) : '', ...players];
    else if (!end) when = ['Never ends', ...players];
    else if (p.status === 'upcoming' && start) when = ['Starts ', at(start), ...players];
    else if (end.getTime() <= now) when = ['Ended ', at(end), ', closing…', ...players];
    else when = [`Ends in ${fmtDuration(end.getTime() - now)}`, dot(), at(end), ...players];
    const picked = p.period_id === shown.picked;
    return h('li', {
      class: ['period-item', p.status, picked && 'picked'], 'data-testid': 'period-item',
      dataset: { periodId: p.period_id, status: p.status },
    },
    h('span', { class: 'period-name' },
      open ? h('span', { 'data-testid': 'period-name' }, name)
        : h('button', {
          type: 'button', class: 'link', 'data-testid': 'period-name', dataset: { pick: p.period_id },
          'aria-controls': 'period-summary', 'aria-pressed': String(picked), title: `Show the final standings of ${name}`,
        }, name),
      ' ', h('span', { class: `period-status ${p.status}`, 'data-testid': 'period-status' }, p.status)),
    h('span', { class: 'period-when muted small' }, ...when));
  }));
}

/** GET .../periods/{period_id}: the closing summary of a closed period, shown beside the list. */
async function pickPeriod(periodId) {
  shown.picked = periodId;
  renderList();
  const turn = summaries.begin();
  const board = shown.board;
  const box = $('#period-summary');
  box.hidden = false;
  box.setAttribute('aria-busy', 'true');
  box.replaceChildren(h('p', { class: 'muted small' }, 'Loading the final standings…'));
  const picked = document.activeElement;
  try {
    const { data } = await turn.request(api.period(board, periodId));
    renderSummary(box, data, board);
    if (focusUnmoved(picked)) box.focus({ preventScroll: true });
  } catch (err) {
    if (err instanceof Superseded) return;
    box.replaceChildren(h('p', { class: 'error small' }, `Could not load ${periodId}: ${err.message}.`));
  } finally {
    if (turn.current) box.removeAttribute('aria-busy');
  }
}

function hideSummary() {
  summaries.begin(); // an answer still on its way is for another board
  const box = $('#period-summary');
  box.hidden = true;
  box.replaceChildren();
}

function renderSummary(box, summary, board) {
  const closedAt = parseTime(summary.closed_at);
  const top = Array.isArray(summary.top) ? summary.top : [];
  const total = summary.total_players;
  box.replaceChildren(...[
    h('h3', { 'data-testid': 'summary-title' }, `Final standings: ${periodName(summary.kind, summary.period_id)}`),
    h('p', { class: 'muted small' },
      closedAt ? ['Closed ', h('time', { datetime: closedAt.toISOString() }, dateTimeFormat.format(closedAt))] : 'Closed',
      typeof total === 'number' ? ` · ${fmt(total)} ${plural(total, 'player')}` : ''),
    rewardsBlock(summary.rewards),
    tiersBlock(summary.tier_cutoffs, board),
    h('h4', null, top.length > SUMMARY_ROWS ? `Top ${SUMMARY_ROWS} of ${fmt(top.length)} kept` : 'Final top'),
    top.length
      ? h('ol', { class: 'summary-top snapshot-entries', 'data-testid': 'summary-top' }, top.slice(0, SUMMARY_ROWS).map((e) =>
        h('li', { 'data-testid': 'summary-row', dataset: { playerId: e.player_id } },
          h('span', { class: 'n-rank' }, `#${e.rank}`),
          h('span', { class: 'n-name' }, e.player_name || e.player_id),
          h('span', { class: 'n-score num' }, fmt(e.score)))))
      : h('p', { class: 'muted small', 'data-testid': 'summary-top' }, 'Nobody played in this period.'),
  ].flat().filter(Boolean));
}

/** Each reward with its ranks and the players who won it. */
function rewardsBlock(rewards) {
  if (!Array.isArray(rewards) || rewards.length === 0) return null;
  return [
    h('h4', null, 'Rewards'),
    h('ul', { class: 'summary-rewards', 'data-testid': 'summary-rewards' }, rewards.map((r) => {
      const [first, last] = Array.isArray(r.ranks) ? r.ranks : [];
      const ranks = first === last ? `rank ${first}` : `ranks ${first}–${last}`;
      const players = (r.players || []).map((e) => e.player_name || e.player_id);
      return h('li', { 'data-testid': 'summary-reward', dataset: { reward: r.reward } },
        h('span', { class: 'reward-name' }, r.reward), h('span', { class: 'muted' }, ` (${ranks}): `),
        h('span', { 'data-testid': 'reward-players' }, players.length ? players.join(', ') : 'nobody'));
    })),
  ];
}

/** Each tier's lowest score that reaches it, in the board's order of tiers (highest first). */
function tiersBlock(cutoffs, board) {
  if (!cutoffs || typeof cutoffs !== 'object' || Object.keys(cutoffs).length === 0) return null;
  const declared = ((boardInfo(board) || {}).tiers || []).map((t) => t.name).filter((name) => name in cutoffs);
  const names = [...declared, ...Object.keys(cutoffs).filter((name) => !declared.includes(name))];
  const reaches = lowerIsBetter(board) ? '≤' : '≥';
  return [
    h('h4', null, 'Tier cut-offs'),
    h('dl', { class: 'summary-tiers', 'data-testid': 'summary-tiers' }, names.map((name) =>
      h('div', { 'data-testid': 'summary-tier', dataset: { tier: name } },
        h('dt', null, name),
        h('dd', { 'data-testid': 'tier-cutoff' }, cutoffs[name] === null || cutoffs[name] === undefined
          ? 'nobody reached it' : `${reaches} ${fmt(cutoffs[name])}`)))),
  ];
}
