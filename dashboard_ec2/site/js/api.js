/* Every URL the page calls, in one place (contract: docs/API.md; the API's own description: /openapi.json).
 * Public reads go through config.apiBase ("/api"), admin calls through config.adminBase ("/admin-api"),
 * where Nginx asks for the admin password and adds the API key itself: the page never sees a key. */

import { config } from './state.js';

// Parameters left undefined are not sent (the API's default applies).
const query = (params) => {
  const given = Object.entries(params || {}).filter(([, value]) => value !== undefined);
  return given.length ? `?${new URLSearchParams(given)}` : '';
};
const read = (path, params) => `${config().apiBase}${path}${query(params)}`;
const board = (id) => `/leaderboards/${encodeURIComponent(id)}`;

/** rank_mode is sent only when it is not the API's default (unique), so the usual URLs stay as they were. */
const sent = (mode) => (mode && mode !== 'unique' ? mode : undefined);

/** Where a game server submits a board's scores (the empty board says so). */
export const boardScoresPath = (id) => `${board(id)}/scores`;

export const api = {
  openapi: () => read('/openapi.json'),
  boards: (cursor) => read('/leaderboards', { cursor }),
  board: (id) => read(board(id)),
  liveToken: (id) => read(`${board(id)}/scores`), // never cached: a subscribe token for one connection
  top: (id, period, limit, mode) => read(`${board(id)}/top`, { period, limit, rank_mode: sent(mode) }),
  around: (id, period, playerId, window, mode) =>
    read(`${board(id)}/players/${encodeURIComponent(playerId)}`, { period, window, rank_mode: sent(mode) }),
  periods: (id) => read(`${board(id)}/periods`),
  // Players across boards: some players ranked on one board, every board of one player.
  friends: (id, period, ids, cursor) => read(`${board(id)}/players`, { period, ids: ids.join(','), cursor }),
  playerBoards: (playerId, cursor) => read(`/players/${encodeURIComponent(playerId)}/boards`, { limit: 100, cursor }),
  period: (id, periodId) => read(`${board(id)}/periods/${encodeURIComponent(periodId)}`),
  // The original routes: the default board only.
  leaderboard: (period, limit, mode) => read('/leaderboard', { period, limit, rank_mode: sent(mode) }),
  player: (playerId) => read('/player', { player_id: playerId }),
  snapshots: (period, limit) => read('/snapshots', { period, limit }),
};

export const admin = {
  session: () => `${config().adminBase}/session`, // signed in? (no password dialog)
  ping: () => `${config().adminBase}/ping`, // sign in (the browser's password dialog)
  snapshot: () => `${config().adminBase}/snapshot`,
  simulate: () => `${config().adminBase}/simulate`,
  // Moderation: PUT hides the player on the board, DELETE shows them again.
  hidden: (id, playerId) => `${config().adminBase}${board(id)}/players/${encodeURIComponent(playerId)}/hidden`,
  hiddenList: (id, limit, cursor) => `${config().adminBase}${board(id)}/hidden${query({ limit, cursor })}`,
  // The review queue: submissions a board's rules held back; approve applies one, reject drops it.
  pendingList: (id, limit, cursor) => `${config().adminBase}${board(id)}/pending${query({ limit, cursor })}`,
  // One player's held scores (no public read shows them): the lookup's, for a signed-in admin.
  pendingOf: (id, playerId) => `${config().adminBase}${board(id)}/pending${query({ player_id: playerId, limit: 100 })}`,
  pendingDecision: (id, pendingId, decision) =>
    `${config().adminBase}${board(id)}/pending/${encodeURIComponent(pendingId)}/${decision}`,
};
