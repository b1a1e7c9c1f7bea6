/* The client: openapi-fetch over the generated `paths` (every operation, typed), and the flows a generator cannot
 * write: the player-token and run flow, idempotent score submissions, cursor paging, live following. */

import createClient, { type Client, type Middleware } from 'openapi-fetch';

import type { components, paths } from './generated/openapi.js';
import { LeaderboardError } from './errors.js';
import { follow, type FollowOptions, type Follower, type WebSocketConstructor } from './live.js';
import { verifyReceipt, type Jwks, type VerifiedReceipt } from './receipts.js';
import { retryAfterMs, retryingFetch, type RetryOptions } from './retry.js';

export type Schemas = components['schemas'];
export type Entry = Schemas['Entry'];
export type Page = Schemas['Page'];
export type Board = Schemas['Board'];
export type PlayerToken = Schemas['PlayerToken'];
export type BoardSubmit = Schemas['BoardSubmit'];
export type PendingScore = Schemas['PendingScore'];
export type Receipt = Schemas['Receipt'];
export type Around = Schemas['Around'];
export type PlayerBoards = Schemas['PlayerBoards'];
/** The body of POST /leaderboards: a board's id and settings (docs/API.md, "Many boards"). */
export type BoardSpec = NonNullable<paths['/leaderboards']['post']['requestBody']>['content']['application/json'];
/** A player's standing on a board period: rank, score, total_players, percentile (and tier where the board has). */
export type Standing = Omit<Around, 'above' | 'below'>;
export type ApiClient = Client<paths>;

export interface ClientOptions {
  /** The API's URL (the `API:` line of `make run`, the `ApiUrl` output on AWS); reads may use the edge's. */
  baseUrl: string;
  /** Sent as x-api-key: the game key or the admin key. Servers only: never ship a key to a browser. */
  apiKey?: string;
  /** Default globalThis.fetch. */
  fetch?: (input: Request) => Promise<Response>;
  /** Default: globalThis.WebSocket, else on Node the `ws` package when it is installed (an optional peer
   * dependency: Node 20 has no global WebSocket without --experimental-websocket); null: never live, follow() polls
   * (and says so: FollowOptions.onFallback). */
  WebSocket?: WebSocketConstructor | null;
  /** 429 (after Retry-After) and 5xx/network errors; POSTs only with an Idempotency-Key. */
  retry?: RetryOptions;
  /** More openapi-fetch middleware (logging, metrics): added after the SDK's own. */
  middleware?: Middleware[];
}

/** A run: what POST /leaderboards/{board}/runs answered, and who and where it is for. */
export interface Run {
  board: string;
  runId: string;
  runToken: string;
  playerId: string;
  seed: number;
  startedAt: string;
  expiresAt: string;
}

export interface Submission {
  score: number;
  player_name?: string;
  metadata?: Record<string, unknown>;
  evidence?: Record<string, unknown>;
}

/** A submission's outcome: the board's answer (200), or `held` for review by a quarantine rule (202 pending). */
export type SubmitResult =
  | ({ held: false } & BoardSubmit)
  | ({ held: true } & PendingScore);

export interface PageOptions {
  period?: string;
  limit?: number;
}

export interface ReceiptOptions {
  period?: string;
  /** Tries in all while the API answers 409 "log catching up" (default 10). */
  catchUpAttempts?: number;
  /** The longest total wait for the log to catch up, in ms (default 30 000): then the 409 is thrown. */
  maxWaitMs?: number;
}

export interface LeaderboardClient {
  /** Every operation of the OpenAPI document, typed (openapi-fetch: `{data, error, response}`). */
  readonly api: ApiClient;
  /** POST /players/{player_id}/tokens with the game key (a game server's call). */
  playerToken(playerId: string, options?: { boards?: string[]; ttlSeconds?: number }): Promise<PlayerToken>;
  /** POST /leaderboards/{board}/runs with a player token. */
  startRun(board: string, playerToken: string): Promise<Run>;
  /** POST /leaderboards/{board}/runs/{run_id}/score with the run token (and an Idempotency-Key, so it is retried). */
  submitRun(run: Run, submission: Submission, options?: { idempotencyKey?: string }): Promise<SubmitResult>;
  /** POST /leaderboards/{board}/scores with the game key (a game server's), with an Idempotency-Key. */
  submitScore(board: string, submission: Submission & { player_id: string }, options?: { idempotencyKey?: string }):
    Promise<SubmitResult>;
  /** Every entry of a board period, best first, following next_cursor to the end (GET /leaderboards/{board}/top). */
  entries(board: string, options?: PageOptions): AsyncGenerator<Entry, void, undefined>;
  /** GET /leaderboards/{board}/top: one page. */
  top(board: string, options?: PageOptions & { cursor?: string }): Promise<Page>;
  /** GET /leaderboards/{board}: the board, with its `live` field (discovery). */
  board(board: string): Promise<Board>;
  /** GET /leaderboards/{board}/players/{player_id}/receipt with the player's token: a signed receipt; a 409 "log
   * catching up" is waited out (its Retry-After, or `retry_after_seconds`), within `maxWaitMs`. */
  receipt(board: string, playerId: string, playerToken: string, options?: ReceiptOptions): Promise<Receipt>;
  /** A receipt checked against the API's JWKS (GET /.well-known/jwks.json, or the `jwks` given): its claims, or a
   * ReceiptError (tampered, unknown or revoked key, signed by a retired key after its retired_at). */
  verifyReceipt(receipt: string | Receipt, options?: { jwks?: Jwks }): Promise<VerifiedReceipt>;
  /** GET /.well-known/jwks.json: the keys receipts and closing summaries are signed with. */
  jwks(): Promise<Jwks>;
  /** POST /leaderboards with the admin key: a new board (409 if it exists). */
  createBoard(spec: BoardSpec): Promise<Board>;
  /** The board `spec.board_id`: read, or created (admin key) when absent. Its settings are not compared. */
  ensureBoard(spec: BoardSpec): Promise<Board>;
  /** GET /leaderboards/{board}/players/{player_id}: the player's rank, score, total and percentile, with `window`
   * entries above and below (default 5). */
  around(board: string, playerId: string, options?: { period?: string; window?: number;
    rankMode?: 'unique' | 'competition' }): Promise<Around>;
  /** The player's rank, score, total_players and percentile on a board period (the same route, no neighbours). */
  rank(board: string, playerId: string, options?: { period?: string; rankMode?: 'unique' | 'competition' }):
    Promise<Standing>;
  /** GET /players/{player_id}/boards: one page of the boards (current periods) the player is on, with ranks. */
  playerBoards(playerId: string, options?: { limit?: number; cursor?: string }): Promise<PlayerBoards>;
  /** Follow a board period live (AppSync Events), polling the top while not live. */
  follow(board: string, options: FollowOptions): Follower;
}

/** A fresh Idempotency-Key: a UUID where the platform has one (browsers in secure contexts, Node 20). */
export function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}

/** The `sub` (player id) of a JWT, read without checking it: the tokens are signed, not encrypted (docs/API.md). */
export function tokenSubject(token: string): string {
  const payload = token.split('.')[1] ?? '';
  try {
    const text = atob(payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '='));
    const bytes = Uint8Array.from(text, (ch) => ch.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes)) as { sub?: unknown };
    if (typeof claims.sub === 'string') return claims.sub;
  } catch {
    // not a JWT: below
  }
  throw new TypeError('not a player token (a JWT with a `sub` claim)');
}

/** A token's call carries the token alone: a client made with the game key leaves its key out (the API refuses
 * the game key and a run token together with a 400; the token is the credential on these routes). */
function bearer(token: string): { Authorization: string; 'x-api-key': null } {
  return { Authorization: `Bearer ${token}`, 'x-api-key': null };
}

/** The body of a success, or a LeaderboardError with the API's answer. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  throw new LeaderboardError(result.response.status, result.error ?? null, retryAfterMs(result.response));
}

/** The wait a 409 "log catching up" asks for (a receipt asked for before the log has the entry), in ms: its
 * Retry-After header, else its body's retry_after_seconds; null for any other answer. */
function catchingUpMs(result: { error?: unknown; response: Response }): number | null {
  if (result.response.status !== 409) return null;
  const header = retryAfterMs(result.response);
  if (header !== null) return header;
  const body = result.error && typeof result.error === 'object' ? result.error as { retry_after_seconds?: unknown } : {};
  const seconds = body.retry_after_seconds;
  return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : null;
}

/** The `ws` package on Node, when the project installed it (an optional peer dependency); undefined elsewhere. */
async function nodeWebSocket(): Promise<WebSocketConstructor | undefined> {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  if (typeof node !== 'string') return undefined;
  const name = 'ws'; // a variable, so that bundlers leave this optional dependency alone
  try {
    const mod = (await import(name)) as { default?: unknown; WebSocket?: unknown };
    const found = mod.WebSocket ?? mod.default;
    return typeof found === 'function' ? found as WebSocketConstructor : undefined;
  } catch {
    return undefined; // not installed: follow() polls and says so
  }
}

function submitted(result: { data?: BoardSubmit | PendingScore; error?: unknown; response: Response }): SubmitResult {
  const body = ok(result);
  if (result.response.status === 202 || (body as PendingScore).status === 'pending') {
    return { held: true, ...(body as PendingScore) };
  }
  return { held: false, ...(body as BoardSubmit) };
}

export function createLeaderboardClient(options: ClientOptions): LeaderboardClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(baseFetch, options.retry),
    headers: options.apiKey ? { 'x-api-key': options.apiKey } : {},
  });
  for (const middleware of options.middleware ?? []) api.use(middleware);
  /** A keyless client with the caller's middleware: the edge's cached reads (retried), or the live token's read
   * (not retried: a follower that gets no token polls and tries again with its own backoff, as the dashboard). */
  const keyless = (baseUrl: string, retry: RetryOptions | undefined) => {
    const plain = createClient<paths>({ baseUrl: baseUrl.replace(/\/+$/, ''), fetch: retryingFetch(baseFetch, retry) });
    for (const middleware of options.middleware ?? []) plain.use(middleware);
    return plain;
  };

  const top = async (board: string, o: PageOptions & { cursor?: string } = {}) =>
    ok(await api.GET('/leaderboards/{board}/top', {
      params: { path: { board }, query: { period: o.period, limit: o.limit, cursor: o.cursor } },
    }));

  const client: LeaderboardClient = {
    api,
    async playerToken(playerId, o = {}) {
      return ok(await api.POST('/players/{player_id}/tokens', {
        params: { path: { player_id: playerId } },
        body: { boards: o.boards, ttl_seconds: o.ttlSeconds },
      }));
    },
    async startRun(board, playerToken) {
      const playerId = tokenSubject(playerToken);
      const run = ok(await api.POST('/leaderboards/{board}/runs', {
        params: { path: { board } },
        headers: bearer(playerToken),
      }));
      return {
        board, playerId, runId: run.run_id, runToken: run.run_token, seed: run.seed, startedAt: run.started_at,
        expiresAt: run.expires_at,
      };
    },
    async submitRun(run, submission, o = {}) {
      return submitted(await api.POST('/leaderboards/{board}/runs/{run_id}/score', {
        params: {
          path: { board: run.board, run_id: run.runId },
          header: { 'Idempotency-Key': o.idempotencyKey ?? newIdempotencyKey() },
        },
        headers: bearer(run.runToken),
        body: { ...submission, player_id: run.playerId },
      }));
    },
    async submitScore(board, submission, o = {}) {
      return submitted(await api.POST('/leaderboards/{board}/scores', {
        params: { path: { board }, header: { 'Idempotency-Key': o.idempotencyKey ?? newIdempotencyKey() } },
        body: submission,
      }));
    },
    async *entries(board, o = {}) {
      let cursor: string | undefined;
      do {
        const page = await top(board, { ...o, cursor });
        yield* page.entries;
        cursor = page.next_cursor;
      } while (cursor);
    },
    top,
    async board(board) {
      return ok(await api.GET('/leaderboards/{board}', { params: { path: { board } } }));
    },
    async receipt(board, playerId, playerToken, o = {}) {
      // The log is appended from the table's stream, a moment after the score: until it has the player's entry
      // the API answers 409 "log catching up" with the wait it asks for, which this waits out, within a bound.
      const deadline = Date.now() + (o.maxWaitMs ?? 30_000);
      for (let attempt = 1; ; attempt++) {
        const result = await api.GET('/leaderboards/{board}/players/{player_id}/receipt', {
          params: { path: { board, player_id: playerId }, query: { period: o.period } },
          headers: bearer(playerToken),
        });
        const wait = catchingUpMs(result);
        if (wait === null || attempt >= (o.catchUpAttempts ?? 10) || Date.now() + wait > deadline) return ok(result);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    },
    async jwks() {
      return ok(await api.GET('/.well-known/jwks.json'));
    },
    async verifyReceipt(receipt, o = {}) {
      return verifyReceipt(typeof receipt === 'string' ? receipt : receipt.receipt, o.jwks ?? await client.jwks());
    },
    async createBoard(spec) {
      return ok(await api.POST('/leaderboards', { body: spec }));
    },
    async ensureBoard(spec) {
      const board = spec.board_id;
      const read = await api.GET('/leaderboards/{board}', { params: { path: { board } } });
      if (read.response.status !== 404) return ok(read);
      const created = await api.POST('/leaderboards', { body: spec });
      if (created.response.status !== 409) return ok(created);
      return ok(await api.GET('/leaderboards/{board}', { params: { path: { board } } })); // created meanwhile
    },
    async around(board, playerId, o = {}) {
      return ok(await api.GET('/leaderboards/{board}/players/{player_id}', {
        params: { path: { board, player_id: playerId }, query: { period: o.period, window: o.window, rank_mode: o.rankMode } },
      }));
    },
    async rank(board, playerId, o = {}) {
      const { above: _above, below: _below, ...standing } = await client.around(board, playerId, { ...o, window: 0 });
      return standing;
    },
    async playerBoards(playerId, o = {}) {
      return ok(await api.GET('/players/{player_id}/boards', {
        params: { path: { player_id: playerId }, query: { limit: o.limit, cursor: o.cursor } },
      }));
    },
    follow(board, o) {
      return follow(board, o, {
        api: keyless(options.baseUrl, { attempts: 1 }),
        loadWebSocket: async () => {
          if (options.WebSocket === null) return undefined;
          return options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket
            ?? nodeWebSocket();
        },
        edge: o.edgeUrl ? keyless(o.edgeUrl, options.retry) : api,
      });
    },
  };
  return client;
}
