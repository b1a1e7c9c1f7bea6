/* The admin area: sign-in (the browser's basic-auth dialog, answered to Nginx), a snapshot of the default
 * board's period on screen, and seeding players through the simulator. Nginx adds the admin API key. */

import { admin } from '../api.js';
import { boardName, isDefault, periodLabel, periodTitle } from '../boards.js';
import { $, setStatus } from '../dom.js';
import { fmt, fmtMs, parseTime, plural, timeFormat } from '../format.js';
import { post, request } from '../request.js';
import * as state from '../state.js';

const SNAPSHOT_LIMIT = 25; // players frozen in a snapshot

let hooks = { afterSnapshot() {}, afterSeed() {} };

/** hooks.afterSnapshot(snapshot): a snapshot was taken (POST /snapshot's answer); hooks.afterSeed(): players were seeded. */
export function initAdmin(options) {
  hooks = { ...hooks, ...options };
  $('#admin-signin').href = admin.ping();
  $('#admin-signin').addEventListener('click', signIn);
  $('#snapshot-button').addEventListener('click', takeSnapshot);
  $('#seed-form').addEventListener('submit', seedPlayers);
  state.on('view', syncControls);
  state.on('admin', syncControls);
  state.on('limits', (limits) => showSeedRange(limits.seedPlayers));
}

/** Ask, without a password dialog, whether the browser is signed in already. */
export async function checkAdmin() {
  try {
    await request(admin.session());
    setSignedIn(true);
  } catch (err) {
    if (err.status === 401) setSignedIn(false);
    else setSignedIn(false, `Admin area unavailable: ${err.message}.`);
  }
}

function setSignedIn(signedIn, message) {
  const stateEl = $('#admin-state');
  stateEl.dataset.state = signedIn ? 'signed-in' : 'signed-out';
  stateEl.textContent = message || (signedIn
    ? 'Signed in as admin. Actions go through Nginx, which adds the API key.'
    : 'Not signed in. Taking snapshots and seeding players need the admin password.');
  $('#admin-signin').hidden = signedIn;
  state.setSignedIn(signedIn);
}

/** Seeding needs the sign-in; a snapshot also needs the default board (the only one the API snapshots). */
function syncControls() {
  const snapshotable = isDefault();
  const defaultName = boardName(state.defaultBoard());
  const button = $('#snapshot-button');
  if (!button.classList.contains('busy')) button.disabled = !state.signedIn() || !snapshotable;
  $('#snapshot-board').textContent = snapshotable ? periodLabel(state.view().period) : defaultName;
  const note = $('#snapshot-note');
  note.hidden = snapshotable;
  note.textContent = snapshotable ? '' : `Snapshots cover the ${defaultName} board only: pick it in “Board” to take one.`;
  for (const el of [$('#seed-count'), $('#seed-button')]) if (!el.classList.contains('busy')) el.disabled = !state.signedIn();
}

/** The simulator's range, as the API's OpenAPI document states it: in the label and on the input. */
function showSeedRange({ min, max } = {}) {
  const input = $('#seed-count');
  if (typeof min === 'number') input.min = String(min);
  if (typeof max === 'number') input.max = String(max);
  if (typeof min === 'number' && typeof max === 'number') $('#seed-range').textContent = ` (${min}–${max})`;
}

async function signIn(event) {
  event.preventDefault();
  const result = $('#admin-result');
  setStatus(result, 'loading', 'Waiting for the browser’s sign-in dialog…');
  try {
    // A 401 with a Basic challenge makes the browser ask for the password, then retry.
    await request(admin.ping());
    setSignedIn(true);
    setStatus(result, 'ok', 'Signed in: snapshot and seed are enabled.');
    $('#snapshot-button').focus();
  } catch (err) {
    setSignedIn(false);
    setStatus(result, 'error', err.status === 401
      ? 'Not signed in: the sign-in was cancelled or the password was wrong. Try “Sign in as admin” again.'
      : `Sign-in failed: ${err.message}.`);
  }
}

/** An admin action's failure in words, as every admin action shows it; a 401 also signs the page out. */
export function adminFailure(err) {
  if (err.status === 401) {
    setSignedIn(false);
    return 'Admin sign-in required (HTTP 401): use “Sign in as admin” first.';
  }
  if (err.status === 403) return `Refused (HTTP 403)${err.body && err.body.error ? `: ${err.body.error}` : ''}.`;
  return `${err.message}.`;
}

/** POST an admin action, with the button busy meanwhile; done(data) words the result. */
async function act(button, busyText, url, body, done) {
  const result = $('#admin-result');
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  button.classList.add('busy');
  setStatus(result, 'loading', busyText);
  try {
    const { data, ms } = await post(url, body);
    setStatus(result, 'ok', `${done(data)} (${fmtMs(ms)}).`);
  } catch (err) {
    setStatus(result, 'error', adminFailure(err));
  } finally {
    button.classList.remove('busy');
    button.removeAttribute('aria-busy');
    syncControls();
  }
}

function takeSnapshot() {
  if (!isDefault()) return;
  const { period } = state.view();
  act($('#snapshot-button'), 'Taking snapshot…', admin.snapshot(), { period, limit: SNAPSHOT_LIMIT }, (data) => {
    hooks.afterSnapshot(data);
    const taken = parseTime(data.taken_at);
    const n = (data.entries || []).length;
    return `Snapshot of ${periodTitle(data)} taken${taken ? ` at ${timeFormat.format(taken)}` : ''}: ${n} ${plural(n, 'player')}`;
  });
}

function seedPlayers(event) {
  event.preventDefault();
  const input = $('#seed-count');
  const players = Number(input.value);
  const { min, max } = (state.limits() || {}).seedPlayers || {};
  const known = typeof min === 'number' && typeof max === 'number';
  if (!Number.isInteger(players) || (known && (players < min || players > max))) {
    setStatus($('#admin-result'), 'error', known
      ? `Players to seed must be a whole number from ${min} to ${max}.`
      : 'Players to seed must be a whole number.');
    input.focus();
    return;
  }
  act($('#seed-button'), 'Seeding…', admin.simulate(), { players }, (data) => {
    hooks.afterSeed();
    return `Seeded ${fmt(data.players ?? players)} players with ${fmt(data.writes ?? 0)} writes`;
  });
}
