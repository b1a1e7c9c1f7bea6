/* For a signed-in admin: the review queue of the board on screen, the submissions its plausibility rules held back
 * (GET .../pending through Nginx, which adds the key), oldest first, a page at a time. Each shows the rule that
 * fired, its run and the evidence the client sent, with Approve (applied as at its submission time) and Reject
 * (dropped). docs/FAKE_SCORES.md has the whole flow. */

import { admin } from '../api.js';
import { boardName } from '../boards.js';
import { $, h, setStatus } from '../dom.js';
import { dateTimeFormat, fmt, fmtMs, parseTime, plural } from '../format.js';
import { latestOnly, request, Superseded } from '../request.js';
import * as state from '../state.js';
import { adminFailure } from './admin.js';

const PAGE = 10; // submissions a page of the queue shows (the API takes up to 100)
const EVIDENCE_CHARS = 2000; // evidence is at most 2 KB of compact JSON (the API's limit): shown whole, indented
const turns = latestOnly();
let listed = { board: null, count: 0, cursor: null };
let hooks = { afterApprove() {} };

/** hooks.afterApprove(board, decision): a pending submission was approved (it is on the board now). */
export function initPending(options) {
  hooks = { ...hooks, ...options };
  $('#pending-more').addEventListener('click', () => loadPending({ more: true }));
  state.on('view', () => {
    if (state.view().board !== listed.board) loadPending();
  });
  state.on('admin', () => loadPending());
}

/** The first page again (or, with `more`, the next one) for the board on screen; hidden when signed out. */
export async function loadPending({ more = false, done } = {}) {
  const box = $('#pending-queue');
  const { board } = state.view();
  if (!state.signedIn() || !board) {
    box.hidden = true;
    listed = { board: null, count: 0, cursor: null };
    return;
  }
  box.hidden = false;
  $('#pending-board').textContent = boardName(board);
  const status = $('#pending-status');
  const turn = turns.begin();
  if (!done) setStatus(status, 'loading', more ? 'Loading more…' : 'Loading…');
  try {
    const cursor = more && listed.board === board ? listed.cursor : undefined;
    const { data } = await turn.request(admin.pendingList(board, PAGE, cursor));
    const rows = (data.pending || []).map((item) => row(board, item));
    if (cursor) $('#pending-list').append(...rows);
    else $('#pending-list').replaceChildren(...rows);
    listed = { board, count: (cursor ? listed.count : 0) + rows.length, cursor: data.next_cursor || null };
    $('#pending-more').hidden = !listed.cursor;
    const summary = listed.count
      ? `${fmt(listed.count)} ${plural(listed.count, 'submission')} waiting for review${listed.cursor ? ' so far: more below' : ''}.`
      : 'No submission is waiting for review on this board.';
    setStatus(status, done ? done.kind : 'ok', done ? `${done.text} ${summary}` : summary);
  } catch (err) {
    if (err instanceof Superseded) return;
    failed(status, err);
  }
}

function row(board, item) {
  const { pending_id: pendingId, player_id: playerId, score, rule, submitted_at: submittedAt } = item;
  const when = parseTime(submittedAt);
  const approve = h('button', { type: 'button', class: 'button', 'data-testid': 'pending-approve' }, 'Approve');
  const reject = h('button', { type: 'button', class: 'button secondary', 'data-testid': 'pending-reject' }, 'Reject');
  const facts = [
    h('span', { class: 'rule-chip', 'data-testid': 'pending-rule', title: 'The board’s rule that held it back' }, rule),
    when ? h('span', { class: 'muted small' }, `submitted ${dateTimeFormat.format(when)}`) : null,
    item.run_id ? h('span', { class: 'muted small', 'data-testid': 'pending-run' }, 'run ', h('code', {}, item.run_id)) : null,
  ];
  const evidence = item.evidence === undefined ? null : h('details', { class: 'pending-evidence', 'data-testid': 'pending-evidence' },
    h('summary', {}, 'Evidence'),
    h('pre', {}, JSON.stringify(item.evidence, null, 2).slice(0, EVIDENCE_CHARS)));
  const entry = h('li', { class: 'pending-row', 'data-testid': 'pending-row', dataset: { pendingId, playerId } },
    h('p', { class: 'pending-head' },
      h('span', { class: 'player-id', 'data-testid': 'pending-player' }, playerId), ' ',
      h('strong', { class: 'num', 'data-testid': 'pending-score' }, fmt(score))),
    h('p', { class: 'pending-facts' }, ...facts.filter(Boolean).flatMap((el) => [el, ' '])),
    evidence,
    h('p', { class: 'pending-actions' }, approve, ' ', reject));
  approve.addEventListener('click', () => decide(board, item, 'approve', [approve, reject]));
  reject.addEventListener('click', () => decide(board, item, 'reject', [approve, reject]));
  return entry;
}

/** POST the decision with both buttons busy meanwhile; then the queue again, saying what was done. */
async function decide(board, { pending_id: pendingId, player_id: playerId, score }, decision, buttons) {
  const [clicked] = buttons.filter((b) => b.dataset.testid === `pending-${decision}`);
  for (const button of buttons) button.disabled = true;
  clicked.setAttribute('aria-busy', 'true');
  clicked.classList.add('busy');
  const status = $('#pending-status');
  setStatus(status, 'loading', decision === 'approve' ? `Approving ${playerId}’s ${fmt(score)}…` : `Rejecting ${playerId}’s ${fmt(score)}…`);
  try {
    const { data, ms } = await request(admin.pendingDecision(board, pendingId, decision), { method: 'POST' });
    if (decision === 'approve') hooks.afterApprove(board, data);
    const text = decision === 'approve'
      ? `Approved: ${playerId}’s ${fmt(score)} is on the board (${fmtMs(ms)}).`
      : `Rejected: ${playerId}’s ${fmt(score)} is dropped (${fmtMs(ms)}).`;
    await loadPending({ done: { kind: 'ok', text } });
  } catch (err) {
    clicked.classList.remove('busy');
    clicked.removeAttribute('aria-busy');
    if (err.status === 404) {
      await loadPending({ done: { kind: 'error', text: adminFailure(err) } }); // decided elsewhere: the queue again
      return;
    }
    failed(status, err);
    for (const button of buttons) button.disabled = false;
  }
}

/** A failure where the other admin actions show theirs; signed out (401), the queue hides: the panel's result says it. */
function failed(status, err) {
  const text = adminFailure(err);
  setStatus(err.status === 401 ? $('#admin-result') : status, 'error', text);
}
