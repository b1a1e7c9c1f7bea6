/* The snapshots of the period on screen, newest first, and its trend chart. The API keeps
 * snapshots of the default board only: on another board this section says so.
 *
 * The list is read through the edge, which keeps it up to its max-age + stale-while-revalidate (a minute): a
 * snapshot taken from this page (the admin panel's answer holds it whole) is shown at once and kept in the list
 * until a read that surely came after it (started that lag later) lists it or not. */

import { api } from '../api.js';
import { boardName, isDefault, periodLabel, viewLabel } from '../boards.js';
import { $, $$, h, setStatus } from '../dom.js';
import { dateTimeFormat, fmt, fmtMs, parseTime, plural } from '../format.js';
import { latestOnly, Superseded } from '../request.js';
import * as state from '../state.js';
import { drawChart } from './chart.js';

const SNAPSHOTS_LISTED = 20; // snapshots listed
const LISTED_ENTRIES = 10; // players shown in each snapshot
const RESIZE_SETTLE_MS = 150;

const reads = latestOnly();
const shown = { snapshots: [], mode: 'score' }; // newest first, as the API lists them
const taken = []; // {snapshot, until}: taken from this page, shown until a read started at `until` has answered
let lagMs = 0; // how old the list's answer may be (its Cache-Control)

/** A snapshot the admin panel just took (POST /snapshot's answer): in the list at once, then read again. */
export function addSnapshot(snapshot) {
  if (!snapshot || !snapshot.snapshot_id) return;
  taken.push({ snapshot, until: performance.now() + lagMs });
  loadSnapshots();
}

/** The list as read, with the snapshots taken here that a read may not show yet; newest first, as the API's. */
function withTaken(data, startedAt) {
  const listed = Array.isArray(data.snapshots) ? data.snapshots : [];
  for (let i = taken.length - 1; i >= 0; i -= 1) if (startedAt >= taken[i].until) taken.splice(i, 1); // the read is newer
  const ids = new Set(listed.map((snap) => snap.snapshot_id));
  const missing = taken
    .map((t) => t.snapshot)
    .filter((snap) => snap.leaderboard_id === data.leaderboard_id && !ids.has(snap.snapshot_id));
  if (!missing.length) return listed;
  const time = (snap) => parseTime(snap.taken_at)?.getTime() || 0;
  return [...listed, ...missing].sort((a, b) => time(b) - time(a)).slice(0, SNAPSHOTS_LISTED);
}

export function initSnapshots() {
  for (const radio of $$('input[name="chart-mode"]')) {
    radio.addEventListener('change', () => {
      shown.mode = radio.value;
      redraw();
    });
  }
  let resizeTimer = null;
  let lastWidth = window.innerWidth;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (window.innerWidth === lastWidth) return;
      lastWidth = window.innerWidth;
      redraw();
    }, RESIZE_SETTLE_MS);
  });
  state.on('view', () => {
    $('#history-board').textContent = viewLabel();
    $('#chart-mode').hidden = !isDefault(); // only the default board has snapshots to chart
    loadSnapshots();
  });
}

const redraw = () => drawChart($('#history-chart'), $('#history-legend'), [...shown.snapshots].reverse(), shown.mode);

/** GET /snapshots of the period on screen. background: an auto-refresh (no loading message). */
export async function loadSnapshots({ background = false } = {}) {
  const turn = reads.begin();
  const { board, period } = state.view();
  const status = $('#history-status');
  if (!isDefault(board)) {
    show([]);
    setStatus(status, 'empty', `Snapshots are kept for the ${boardName(state.defaultBoard())} board only: pick it in “Board” to see its history and chart.`);
    return;
  }
  if (!background) setStatus(status, 'loading', `Loading the ${periodLabel(period)} snapshots…`);
  try {
    const startedAt = performance.now();
    const answer = await turn.request(api.snapshots(period, SNAPSHOTS_LISTED));
    const { data, ms } = answer;
    lagMs = answer.lagMs;
    const snapshots = withTaken(data || {}, startedAt);
    show(snapshots);
    if (snapshots.length === 0) {
      setStatus(status, 'empty', 'No snapshots of this board yet — take one from the Admin panel.');
    } else {
      const more = snapshots.length === 1 ? ' Take another to see how the players move.' : '';
      setStatus(status, 'ok', `${snapshots.length} ${plural(snapshots.length, 'snapshot')} (newest first), loaded in ${fmtMs(ms)}.${more}`);
    }
  } catch (err) {
    if (err instanceof Superseded) return;
    setStatus(status, 'error', `Could not load the snapshots: ${err.message}.`);
  }
}

/** snapshots: newest first, as the API lists them. */
function show(snapshots) {
  shown.snapshots = snapshots;
  $('#history-list').replaceChildren(...snapshots.map((snap, i) => {
    const taken = parseTime(snap.taken_at);
    const entries = Array.isArray(snap.entries) ? snap.entries : [];
    const leader = entries[0];
    return h('li', { class: 'snapshot', 'data-testid': 'history-item', dataset: { snapshotId: snap.snapshot_id || '' } },
      h('details', { open: i === 0 && snapshots.length <= 3 ? true : null },
        h('summary', null,
          h('time', { datetime: taken ? taken.toISOString() : '' }, taken ? dateTimeFormat.format(taken) : String(snap.taken_at)),
          h('span', { class: 'muted' }, ` · ${entries.length} ${plural(entries.length, 'player')}`),
          leader ? h('span', { class: 'snap-leader' }, ` · leader ${leader.player_name || leader.player_id} (${fmt(leader.score)})`) : null),
        h('ol', { class: 'snapshot-entries' }, entries.slice(0, LISTED_ENTRIES).map((e) =>
          h('li', null, h('span', { class: 'n-rank' }, `#${e.rank}`), h('span', { class: 'n-name' }, e.player_name || e.player_id),
            h('span', { class: 'n-score num' }, fmt(e.score)))))));
  }));
  redraw();
}
