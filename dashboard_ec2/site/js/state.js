/* What more than one view needs to know, changed only through the named updates below.
 *
 * Each update replaces its part and tells the views that subscribed to its topic (`on`). What only one
 * view needs (the table's last rows, the chart mode, the player looked up) stays in that view's module. */

/** How ties can be ranked (the API's rank_mode; dense it refuses), the API's default first. */
export const RANK_MODES = Object.freeze(['unique', 'competition']);
const RANK_MODE_KEY = 'leaderboard.rankMode';

const state = {
  /** Where the API and the admin area are (config.json; these defaults suit the standard Nginx config). Live
   * updates need no setting: each board's discovery read says where its channels are (js/live.js). */
  config: Object.freeze({ apiBase: '/api', adminBase: '/admin-api', stage: '', apiUrl: '' }),
  /** The board the original routes (/leaderboard, /player, /snapshots) act on: set once from the markup. */
  defaultBoard: '',
  /** board_id -> the board as GET /leaderboards describes it (periods with `current` and `next_reset`). */
  boards: new Map(),
  /** Whether `boards` came from the API (until then it holds the default board as the markup shows it). */
  boardsListed: false,
  /** The board and period on screen. */
  view: Object.freeze({ board: '', period: '' }),
  signedIn: false,
  /** Limits the API enforces, read from its OpenAPI document (null until it has answered). */
  limits: null,
  /** How ties are ranked in the table and the lookup: "unique" (the API's default) or "competition". */
  rankMode: rememberedRankMode(),
};

const listeners = { view: [], boards: [], admin: [], limits: [], rankMode: [] };

/** Call `listener(detail)` after each update of `topic` ("view", "boards", "admin", "limits" or "rankMode"). */
export function on(topic, listener) {
  listeners[topic].push(listener);
}

function changed(topic, detail) {
  for (const listener of listeners[topic]) listener(detail);
}

// ---------------------------------------------------------------- reads


/** The rank mode picked on an earlier visit (kept in this browser), else the API's default. */
function rememberedRankMode() {
  try {
    const saved = window.localStorage.getItem(RANK_MODE_KEY);
    return RANK_MODES.includes(saved) ? saved : RANK_MODES[0];
  } catch (_) {
    return RANK_MODES[0]; // storage blocked: this visit only
  }
}

export const config = () => state.config;
export const defaultBoard = () => state.defaultBoard;
export const boards = () => state.boards;
export const boardsListed = () => state.boardsListed;
export const view = () => state.view;
export const signedIn = () => state.signedIn;
export const limits = () => state.limits;
export const rankMode = () => state.rankMode;

// ---------------------------------------------------------------- named updates

export function configure(config) {
  state.config = Object.freeze({ ...state.config, ...config });
}

/** Before the API answers: the default board as the page's markup shows it. */
export function startWith(board) {
  state.defaultBoard = board.board_id;
  state.boards = new Map([[board.board_id, board]]);
  state.boardsListed = false;
}

/** GET /leaderboards answered: every board, in the API's order. */
export function listBoards(boards) {
  state.boards = boards;
  state.boardsListed = true;
  changed('boards', { boards });
}

/** GET /leaderboards/{board} answered: one board's periods and resets, fresh. */
export function updateBoard(board) {
  state.boards = new Map(state.boards).set(board.board_id, board);
  changed('boards', { boards: state.boards, board: board.board_id });
}

/** Show a board and period. Views reload on every call (a click on the open tab refreshes it). */
export function showView(board, period) {
  const before = state.view;
  state.view = Object.freeze({ board, period });
  changed('view', {
    board,
    period,
    changed: board !== before.board || period !== before.period,
    boardChanged: board !== before.board,
  });
}

export function setSignedIn(signedIn) {
  state.signedIn = signedIn;
  changed('admin', { signedIn });
}

export function setLimits(limits) {
  state.limits = Object.freeze(limits);
  changed('limits', state.limits);
}

/** Rank ties another way; remembered in this browser for the next visit. */
export function setRankMode(mode) {
  if (!RANK_MODES.includes(mode) || mode === state.rankMode) return;
  state.rankMode = mode;
  try {
    window.localStorage.setItem(RANK_MODE_KEY, mode);
  } catch (_) {
    // storage blocked: remembered for this visit only
  }
  changed('rankMode', { rankMode: mode });
}
