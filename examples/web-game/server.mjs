// The sample game's own tiny server (Node 20, no dependencies but the TypeScript SDK).
//
// It is the "game backend" of a client-submission board: it holds the game key and mints a short-lived player
// token for the browser (POST /token), so the key never reaches the page. Everything else the page does (a run per
// play, the score with the run token, the live top 10, the receipt) goes from the browser to the API directly.
// It also serves the page, the SDK's browser bundle and /config.json (where the API is).
//
//   node examples/web-game/server.mjs        (while `make run` runs: it reads the stack's run.json)
//
// Settings (environment): WEB_GAME_PORT (default 3004; 0 picks a free one), WEB_GAME_BOARD (default web-game),
// LEADERBOARD_RUN_DIR (where run.json is; default .local/run), and LEADERBOARD_API_URL, LEADERBOARD_EDGE_URL,
// LEADERBOARD_API_KEY (the game key), LEADERBOARD_ADMIN_KEY to use instead of run.json's.

import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const SDK_NODE = path.join(REPO, 'clients', 'typescript', 'dist', 'index.js');
const SDK_BROWSER = path.join(REPO, 'clients', 'typescript', 'dist', 'browser', 'leaderboard-client.js');
const PUBLIC = path.join(HERE, 'public');
const PERIOD = 'all-time';
const ROUND_SECONDS = 10;

// The game's board: a client-submission board (run tokens), higher is better, best score kept. A clicker cannot
// honestly score more than about 15 clicks a second: a faster score is held for review (202 pending), not refused.
export const BOARD_SPEC = {
  name: 'Web game: clicks in 10 s',
  order: 'desc',
  operator: 'best',
  periods: [PERIOD],
  min_score: 0,
  max_score: 1000,
  submissions: 'client',
  rules: { max_score_per_second: { value: 15, action: 'quarantine' } },
};

// The API's player id rule (docs/API.md, "Input rules"): refused here before it costs a call.
const PLAYER_ID = /^(?!\.+$)[A-Za-z0-9_.:@-]{1,64}$/;
const STATIC = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/index.html': ['index.html', 'text/html; charset=utf-8'],
  '/game.js': ['game.js', 'text/javascript; charset=utf-8'],
  '/style.css': ['style.css', 'text/css; charset=utf-8'],
};

function fail(message) {
  console.error(`web-game: ${message}`);
  process.exit(1);
}

/** Where the stack is and its keys: the environment first, then `make run`'s run.json. */
export function stackConfig(env = process.env) {
  const runDir = env.LEADERBOARD_RUN_DIR || path.join(REPO, '.local', 'run');
  const stateFile = path.join(runDir, 'run.json');
  let state = {};
  if (existsSync(stateFile)) {
    state = JSON.parse(readFileSync(stateFile, 'utf8'));
  } else if (!env.LEADERBOARD_API_URL) {
    fail(`no local stack is running (${stateFile} is missing): start one with \`make run\` first`);
  }
  const api = (env.LEADERBOARD_API_URL || state.api || '').replace(/\/+$/, '');
  // run.json says "none (...)" when the stack has no edge (no nginx): reads then go to the API itself
  const edgeSetting = env.LEADERBOARD_EDGE_URL || state.edge || '';
  const edge = /^https?:\/\//.test(edgeSetting) ? edgeSetting.replace(/\/+$/, '') : api;
  const gameKey = env.LEADERBOARD_API_KEY || state.api_key;
  const adminKey = env.LEADERBOARD_ADMIN_KEY || state.admin_key;
  // the admin key only creates the board: a deployed game's server, whose board exists, need not hold it
  if (!api || !gameKey) fail(`the API's URL and the game key are needed (${stateFile} or LEADERBOARD_API_*)`);
  return { api, edge, gameKey, adminKey };
}

async function loadSdk() {
  if (!existsSync(SDK_NODE) || !existsSync(SDK_BROWSER)) {
    fail('the TypeScript SDK is not built (clients/typescript/dist): run `make clients` first');
  }
  return import(pathToFileURL(SDK_NODE).href);
}

/** The error an SDK call threw, as one line (its status and the API's `error` where it has them). */
function describe(err) {
  const status = err?.status ?? err?.response?.status;
  const detail = err?.body?.error ?? err?.error?.error ?? err?.message ?? String(err);
  return status ? `${status} ${detail}` : detail;
}

/** The game's board on the stack: created with the admin key if absent; its discovery answer. */
async function ensureBoard(game, admin, board, apiUrl) {
  const read = () =>
    game.api.GET('/leaderboards/{board}', { params: { path: { board } } }).catch((err) => {
      fail(`cannot reach the API at ${apiUrl} (is \`make run\` still running?): ${describe(err)}`);
    });
  let { data, response } = await read();
  if (response.status === 404) {
    if (!admin) fail(`board ${board} does not exist: create it (BOARD_SPEC) or give the admin key once`);
    const created = await admin.api.POST('/leaderboards', { body: { board_id: board, ...BOARD_SPEC } });
    if (![201, 409].includes(created.response.status)) {
      fail(`creating board ${board}: ${created.response.status} ${JSON.stringify(created.error)}`);
    }
    console.log(`web-game: created the client-submission board ${board}`);
    ({ data, response } = await read());
  }
  if (response.status !== 200) fail(`reading board ${board}: ${response.status}`);
  if (data.submissions !== 'client') {
    fail(`board ${board} takes server submissions only: choose another with WEB_GAME_BOARD=... (or PATCH it)`);
  }
  return data;
}

/** The page's Content-Security-Policy: its own scripts and styles only, and connections to the stack. */
function contentSecurityPolicy(config, discovery) {
  const connect = new Set(["'self'", new URL(config.api).origin, new URL(config.edge).origin]);
  if (discovery.live?.realtime_url) connect.add(new URL(discovery.live.realtime_url).origin);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${[...connect].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

async function readBody(req, limit = 1024) {
  let size = 0;
  const chunks = [];
  for await (const chunk of req) {
    size += chunk.length;
    if (size > limit) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
  } catch {
    throw Object.assign(new Error('the body must be JSON'), { status: 400 });
  }
}

export async function startServer({ port = 3004, board = 'web-game', env = process.env } = {}) {
  const config = stackConfig(env);
  const { createLeaderboardClient } = await loadSdk();
  const game = createLeaderboardClient({ baseUrl: config.api, apiKey: config.gameKey });
  const admin = config.adminKey && createLeaderboardClient({ baseUrl: config.api, apiKey: config.adminKey });
  const discovery = await ensureBoard(game, admin, board, config.api);
  const csp = contentSecurityPolicy(config, discovery);
  const pageConfig = { api: config.api, edge: config.edge, board, period: PERIOD, round_seconds: ROUND_SECONDS };

  const send = (res, status, body, type = 'application/json', extra = {}) => {
    const payload = type === 'application/json' ? JSON.stringify(body) : body;
    res.writeHead(status, {
      'Content-Type': type,
      'Cache-Control': 'no-store',
      'Content-Security-Policy': csp,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      ...extra,
    });
    res.end(payload);
  };

  const server = http.createServer(async (req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    try {
      if (pathname === '/token') {
        if (req.method !== 'POST') return send(res, 405, { error: 'POST only' }, 'application/json', { Allow: 'POST' });
        // A real game mints a token only for the player its own login vouches for: this sample has no login, so
        // the browser names its (random) player id.
        const body = await readBody(req);
        const playerId = body?.player_id;
        if (typeof playerId !== 'string' || !PLAYER_ID.test(playerId)) {
          return send(res, 400, { error: 'player_id: 1-64 of A-Z a-z 0-9 _ . : @ - (not only dots)' });
        }
        try {
          const token = await game.playerToken(playerId, { boards: [board], ttlSeconds: 3600 });
          return send(res, 201, { token: token.token, expires_at: token.expires_at });
        } catch (err) {
          console.error(`web-game: minting a token for ${playerId}: ${describe(err)}`);
          return send(res, 502, { error: `the leaderboard refused a player token: ${describe(err)}` });
        }
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        return send(res, 405, { error: 'GET only' }, 'application/json', { Allow: 'GET, HEAD' });
      }
      if (pathname === '/config.json') return send(res, 200, pageConfig);
      if (pathname === '/sdk/leaderboard-client.js') {
        return send(res, 200, await readFile(SDK_BROWSER), 'text/javascript; charset=utf-8');
      }
      const file = STATIC[pathname];
      if (!file) return send(res, 404, { error: `no such page: ${pathname}` });
      return send(res, 200, await readFile(path.join(PUBLIC, file[0])), file[1]);
    } catch (err) {
      if (!err?.status) console.error(`web-game: ${req.method} ${pathname}: ${err?.stack ?? err}`);
      if (!res.headersSent) send(res, err?.status ?? 500, { error: err?.status ? err.message : 'internal error' });
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${server.address().port}/`;
  return { server, url, config, board };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.env.WEB_GAME_PORT ?? 3004);
  const board = process.env.WEB_GAME_BOARD || 'web-game';
  startServer({ port, board })
    .then(({ server, url }) => {
      console.log(`Web game: ${url}  (board ${board}; the game key stays in this process. Ctrl-C stops it.)`);
      const stop = () => {
        server.close(() => process.exit(0));
        server.closeAllConnections(); // a browser's idle keep-alive connection would hold the close up
      };
      for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, stop);
    })
    .catch((err) => {
      fail(err?.code === 'EADDRINUSE' ? `port ${port} is in use: choose one with WEB_GAME_PORT=...` : describe(err));
    });
}
