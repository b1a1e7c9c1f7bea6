/* Every URL the page calls, in one place (contract: docs/API.md; the API's own description: /openapi.json).
 * Public reads go through config.apiBase ("/api"), admin writes through config.adminBase ("/admin-api"),
 * where Nginx asks for the admin password and adds the API key itself: the page never sees a key. */

import { config } from './state.js';

const query = (params) => (params ? `?${new URLSearchParams(params)}` : '');
const read = (path, params) => `${config().apiBase}${path}${query(params)}`;
const board = (id) => `/leaderboards/${encodeURIComponent(id)}`;

/** Where a game server submits a board's scores (the empty board says so). */
export const boardScoresPath = (id) => `${board(id)}/scores`;

export const api = {
  openapi: () => read('/openapi.json'),
  boards: () => read('/leaderboards'),
  board: (id) => read(board(id)),
  top: (id, period, limit) => read(`${board(id)}/top`, { period, limit }),
  around: (id, period, playerId, window) =>
    read(`${board(id)}/players/${encodeURIComponent(playerId)}`, { period, window }),
  // The original routes: the default board only.
  leaderboard: (period, limit) => read('/leaderboard', { period, limit }),
  player: (playerId) => read('/player', { player_id: playerId }),
  snapshots: (period, limit) => read('/snapshots', { period, limit }),
};

export const admin = {
  session: () => `${config().adminBase}/session`, // signed in? (no password dialog)
  ping: () => `${config().adminBase}/ping`, // sign in (the browser's password dialog)
  snapshot: () => `${config().adminBase}/snapshot`,
  simulate: () => `${config().adminBase}/simulate`,
};
