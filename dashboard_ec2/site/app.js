/* Leaderboard dashboard: native ES modules, no build step, no dependency.
 *
 * This module starts the page and wires the views together; each view lives in js/views/, the shared
 * state in js/state.js, every URL the page calls in js/api.js, the one request helper in js/request.js.
 * The page talks to the API only through the Nginx in front of it (docs/API.md is the contract). */

import { loadBoards, loadBoardsIfMissing, startFromMarkup } from './js/boards.js';
import { loadLimits } from './js/contract.js';
import { $ } from './js/dom.js';
import * as state from './js/state.js';
import { checkAdmin, initAdmin } from './js/views/admin.js';
import { initFriends } from './js/views/friends.js';
import { initHidden, loadHidden } from './js/views/hidden.js';
import { addSnapshot, initSnapshots, loadSnapshots } from './js/views/snapshots.js';
import { initLookup, lookupFromTable, noteModeration } from './js/views/lookup.js';
import { initPending } from './js/views/pending.js';
import { initPeriods } from './js/views/periods.js';
import { initPicker, openFromHash } from './js/views/picker.js';
import { initRequestLog } from './js/views/request-log.js';
import { initTable, loadTable, refreshAfterChange } from './js/views/table.js';

const SNAPSHOTS_EVERY_TICKS = 10; // the snapshots are read again every 10th auto-refresh of the table (~30 s)

/** config.json at the site root (written at boot on EC2 and by the local stack); absent: the defaults. */
async function loadConfig() {
  const defaults = state.config();
  try {
    const response = await fetch('config.json', { cache: 'no-store', credentials: 'same-origin' });
    if (response.ok) {
      const data = await response.json();
      const config = {};
      for (const key of Object.keys(defaults)) {
        if (typeof data[key] === 'string') config[key] = data[key].replace(/\/+$/, '') || defaults[key];
      }
      state.configure(config);
    }
  } catch (_) {
    // no config.json: the defaults suit the standard Nginx config
  }
  const { stage, apiUrl, apiBase, adminBase } = state.config();
  if (stage) {
    $('#stage-badge').textContent = stage;
    $('#stage-badge').hidden = false;
    document.title = `Leaderboard (${stage})`;
  }
  if (apiUrl) {
    $('#api-url').textContent = apiUrl;
    $('#api-url-wrap').hidden = false;
  }
  $('#api-base').textContent = apiBase;
  $('#admin-base').textContent = adminBase;
}

async function start() {
  await loadConfig();
  startFromMarkup();
  initRequestLog();
  // Views react to the view shown in this order: table, snapshots, lookup, friends, periods, admin.
  initTable({
    onLookup: lookupFromTable,
    onTick: (tick) => {
      if (tick % SNAPSHOTS_EVERY_TICKS === 0) loadSnapshots({ background: true });
    },
    onAnswer: () => {
      // The API answers: what it could not give earlier (it was down at start), read now.
      loadBoardsIfMissing();
      loadLimits();
    },
  });
  initSnapshots();
  // After an admin action the page knows of a change before the edge's answers show it: the views say so at once
  // and read again once the edge's lag has passed (js/views/table.js, snapshots.js, lookup.js).
  initLookup({
    afterModeration: () => {
      loadHidden();
      refreshAfterChange();
    },
  });
  initFriends();
  initPeriods();
  initAdmin({ afterSnapshot: addSnapshot, afterSeed: () => refreshAfterChange() });
  initHidden({
    afterShow: (board, playerId) => {
      noteModeration(board, playerId, false);
      refreshAfterChange();
    },
  });
  initPending({ afterApprove: () => refreshAfterChange() });
  initPicker();
  $('#refresh-now').addEventListener('click', () => {
    loadTable();
    loadSnapshots();
  });

  // The default board is known without the list: it shows at once and the picker fills alongside;
  // a link to another board waits for the list.
  const opening = openFromHash(location.hash);
  loadBoards();
  loadLimits();
  await opening;
  checkAdmin();
}

start();
