/* Following a board period live through AWS AppSync Events' WebSocket protocol, ported from the dashboard's
 * client (dashboard_ec2/site/js/live.js; docs/API.md, "Live updates"), one follower per call instead of one per page:
 *   - discovery: GET /leaderboards/{board} (through the edge when given), its `live` field (realtime_url,
 *     http_host, channels); none: poll only;
 *   - a live subscribe token per connection: GET /leaderboards/{board}/scores (the `token_path`);
 *   - connect with the subprotocols `aws-appsync-event-ws` and `header-<base64url of {"host", "Authorization"}>`,
 *     send connection_init, wait for connection_ack (its connectionTimeoutMs arms the keep-alive watchdog: a
 *     connection that hears no `ka` for that long is dead), subscribe to the period's channel with the same
 *     authorization, and read `data` messages, each a top event {type: "top", board, period, period_id, entries};
 *   - a connection that fails, drops or is refused is tried again with jittered backoff (1 s, 2 s ... 30 s), and
 *     the follower polls GET /leaderboards/{board}/top?period=..&limit=25 (the edge's URL when given) meanwhile.
 * Polling is never silent: the state says `polling`, `fallback` says why, and `onFallback` is told each time (with
 * no handler, a fallback for good, such as no WebSocket in this runtime, is written once to console.warn).
 * The top is read once at the start (something to show while connecting) and again once live (AppSync sends no
 * current state on subscribing), then the events apply. */

import type { Client } from 'openapi-fetch';

import type { components, paths } from './generated/openapi.js';

/** What the SDK needs of a WebSocket: the browser's, Node 22's global one and the `ws` package's all fit. */
export interface WebSocketLike {
  send(data: string): void;
  close(): void;
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: any) => void): void;
}
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

export type FollowState = 'connecting' | 'live' | 'polling' | 'closed';

/** Why a follower polls: no WebSocket in this runtime (Node 20 without the `ws` package, or `WebSocket: null`),
 * live updates off for the board (no `live` field), no channel for the period, or a connection that failed or
 * dropped (tried again with backoff: the follower goes live again by itself). */
export type FallbackReason = 'no-websocket' | 'live-off' | 'no-channel' | 'disconnected';

export interface Fallback {
  reason: FallbackReason;
  message: string;
  /** true: the follower polls for good (it tries no more connections); false: it will try to go live again. */
  final: boolean;
}

/** A board period's top: a pushed event, or the same shape read by a poll (`source` tells which). */
export interface TopEvent {
  type: 'top';
  board: string;
  period: string;
  period_id: string;
  entries: components['schemas']['Entry'][];
  source: 'live' | 'poll';
}

export interface FollowOptions {
  /** The period kind to follow: all-time, daily, weekly, monthly or tournament (a channel per kind). */
  period: string;
  /** Each top: every pushed event, the read when the subscription starts, and each poll while not live. */
  onTop(event: TopEvent): void;
  onState?(state: FollowState): void;
  /** Each fall back to polling, and why (also `follower.fallback`). */
  onFallback?(fallback: Fallback): void;
  /** The poll interval while not live, in ms (default 5000: the edge keeps the top 5 s). */
  pollMs?: number;
  /** Poll through the edge (the cached reads) at this URL instead of the API. */
  edgeUrl?: string;
}

export interface Follower {
  readonly state: FollowState;
  /** Why the follower polls (null while connecting or live, or once closed). */
  readonly fallback: Fallback | null;
  close(): void;
}

export interface FollowDeps {
  api: Client<paths>; // the live token (never cached; not retried: a follower without one polls, then tries again)
  edge: Client<paths>; // discovery and the top (cached reads): the edge's URL, or the API
  /** The WebSocket to connect with: the one given, the platform's, or the `ws` package's on Node; undefined: none. */
  loadWebSocket: () => Promise<WebSocketConstructor | undefined>;
}

const SUBPROTOCOL = 'aws-appsync-event-ws';
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
const HANDSHAKE_TIMEOUT_MS = 5000; // open + connection_ack by then, or the attempt failed
const SUBSCRIBE_TIMEOUT_MS = 5000; // subscribe_success by then, or the same
const DEFAULT_KEEPALIVE_TIMEOUT_MS = 300_000; // AppSync's connectionTimeoutMs until the ack says
const TOP_SIZE = 25; // what an event carries

type LiveInfo = NonNullable<components['schemas']['Board']['live']>;

/** base64url (RFC 4648 §5, no padding) of the UTF-8 JSON of `value`: the `header-` subprotocol's form. */
export function base64url(value: unknown): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(JSON.stringify(value))) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function uniqueId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export function follow(board: string, options: FollowOptions, deps: FollowDeps): Follower {
  const pollMs = options.pollMs ?? 5000;
  let state: FollowState = 'connecting';
  let closed = false;
  let socket: WebSocketLike | null = null;
  let acked = false;
  let subscription: { id: string; ok: boolean } | null = null;
  let retryMs = FIRST_RETRY_MS;
  let keepaliveMs = DEFAULT_KEEPALIVE_TIMEOUT_MS;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  let subscribeTimer: ReturnType<typeof setTimeout> | undefined;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let fallback: Fallback | null = null;
  let warned = false;

  const report = (next: FollowState) => {
    if (next !== 'polling') fallback = null;
    if (next === state) return;
    state = next;
    options.onState?.(next);
  };

  const deliver = (top: TopEvent) => {
    if (!closed && top.board === board && top.period === options.period) options.onTop(top);
  };

  /** One read of the top (through the edge when given); a failed read is tried again at the next poll. */
  const readTop = async () => {
    const { data } = await deps.edge.GET('/leaderboards/{board}/top', {
      params: { path: { board }, query: { period: options.period, limit: TOP_SIZE } },
    }).catch(() => ({ data: undefined }));
    if (data) {
      deliver({
        type: 'top', board, period: options.period, period_id: data.period_id, entries: data.entries, source: 'poll',
      });
    }
  };

  const poll = () => {
    clearTimeout(pollTimer);
    if (closed || state === 'live') return;
    void readTop().finally(() => {
      if (!closed && state !== 'live') pollTimer = setTimeout(poll, pollMs);
    });
  };

  const startPolling = (reason: FallbackReason, message: string, final: boolean) => {
    const was = state;
    report('polling');
    if (!fallback || fallback.reason !== reason || fallback.final !== final) {
      fallback = { reason, message, final };
      if (options.onFallback) options.onFallback(fallback);
      else if (final && !warned) {
        warned = true; // never silent: whoever did not ask to be told still sees it once
        console.warn(`leaderboard follow(${board}): ${message}`);
      }
    }
    if (was !== 'polling') poll();
  };

  const closeSocket = () => {
    clearTimeout(watchdog);
    clearTimeout(subscribeTimer);
    const open = socket;
    socket = null;
    acked = false;
    subscription = null;
    if (open) {
      try {
        open.close();
      } catch {
        // already closed
      }
    }
  };

  /** This connection is given up: poll, and try a new one after a jittered backoff ("equal jitter"). */
  const failed = (why = 'the live connection failed or dropped') => {
    if (closed) return;
    closeSocket();
    startPolling('disconnected', `${why}: polling every ${pollMs} ms until a new connection is live`, false);
    clearTimeout(retryTimer);
    const delay = retryMs / 2 + Math.random() * (retryMs / 2);
    retryTimer = setTimeout(() => void connect(), delay);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };

  const armWatchdog = (ms: number) => {
    clearTimeout(watchdog);
    const watched = socket;
    watchdog = setTimeout(() => {
      if (socket === watched) failed(); // no ack or keep-alive in time: the connection is dead
    }, ms);
  };

  const send = (message: unknown) => {
    try {
      socket?.send(JSON.stringify(message));
    } catch {
      // closing: the close handler takes over
    }
  };

  const receive = (text: unknown, channel: string, auth: object) => {
    let message: { type?: unknown; id?: unknown; connectionTimeoutMs?: unknown; event?: unknown };
    try {
      message = JSON.parse(String(text));
    } catch {
      return; // not JSON: nothing of the protocol
    }
    if (!message || typeof message.type !== 'string') return;
    const ours = subscription !== null && message.id === subscription.id;
    switch (message.type) {
      case 'connection_ack': {
        acked = true;
        const timeout = Number(message.connectionTimeoutMs);
        keepaliveMs = timeout > 0 ? timeout : DEFAULT_KEEPALIVE_TIMEOUT_MS;
        armWatchdog(keepaliveMs);
        const id = uniqueId();
        subscription = { id, ok: false };
        send({ type: 'subscribe', id, channel, authorization: auth });
        clearTimeout(subscribeTimer);
        subscribeTimer = setTimeout(() => {
          if (subscription && subscription.id === id && !subscription.ok) failed();
        }, SUBSCRIBE_TIMEOUT_MS);
        break;
      }
      case 'ka':
        if (acked) armWatchdog(keepaliveMs);
        break;
      case 'subscribe_success':
        if (!ours || !subscription) break;
        clearTimeout(subscribeTimer);
        subscription.ok = true;
        retryMs = FIRST_RETRY_MS; // a working connection: the next failure starts the backoff again
        clearTimeout(pollTimer);
        report('live');
        void readTop(); // AppSync sends no current state: the top once, then the events
        break;
      case 'subscribe_error':
        if (ours) failed(); // a spent or expired token, live switched off, an unknown channel
        break;
      case 'data':
        if (ours && subscription?.ok) {
          for (const item of Array.isArray(message.event) ? message.event : [message.event]) {
            let top: Omit<TopEvent, 'source'> | null = null;
            try {
              top = typeof item === 'string' ? JSON.parse(item) : item;
            } catch {
              continue;
            }
            if (top && top.type === 'top' && Array.isArray(top.entries)) deliver({ ...top, source: 'live' });
          }
        }
        break;
      case 'error':
      case 'connection_error':
        if (!message.id || ours) failed();
        break;
      default:
        // unsubscribe_success, broadcast_error (an event not delivered: the next one carries the whole top again)
        break;
    }
  };

  const discover = async (): Promise<LiveInfo | null> => {
    const { data, response } = await deps.edge.GET('/leaderboards/{board}', { params: { path: { board } } });
    if (data) {
      const live = data.live;
      if (!live || !/^wss?:\/\//.test(live.realtime_url) || typeof live.http_host !== 'string') return null;
      return live;
    }
    if (response.status >= 400 && response.status < 500) return null; // e.g. no such board: nothing to follow
    throw new Error(`discovery answered ${response.status}`);
  };

  let discovery: LiveInfo | null | undefined; // read once per follower (undefined: not yet)

  async function connect(): Promise<void> {
    if (closed) return;
    clearTimeout(retryTimer);
    try {
      if (discovery === undefined) discovery = await discover();
    } catch {
      failed('the board could not be read for discovery'); // the API did not answer: poll, and ask again later
      return;
    }
    const channel = discovery?.channels[options.period];
    const WebSocketClass = await deps.loadWebSocket();
    if (closed) return;
    // Live updates off, no channel for this period, or no WebSocket here: polling for good
    if (!discovery) {
      startPolling('live-off', `board ${board} has no live updates: polling every ${pollMs} ms`, true);
      return;
    }
    if (typeof channel !== 'string') {
      startPolling('no-channel', `board ${board} has no live channel for ${options.period}: polling every ${pollMs} ms`,
        true);
      return;
    }
    if (!WebSocketClass) {
      startPolling('no-websocket', 'no WebSocket in this runtime (on Node 20: npm install ws, or pass WebSocket): '
        + `polling every ${pollMs} ms`, true);
      return;
    }
    const { data } = await deps.api.GET('/leaderboards/{board}/scores', { params: { path: { board } } })
      .catch(() => ({ data: undefined }));
    if (closed) return;
    if (!data || typeof data.token !== 'string' || !data.token) {
      failed('no live token was handed out'); // none now (429, live off): poll, and ask again later
      return;
    }
    const auth = { host: discovery.http_host, Authorization: data.token };
    let opened: WebSocketLike;
    try {
      opened = new WebSocketClass(discovery.realtime_url, [SUBPROTOCOL, `header-${base64url(auth)}`]);
    } catch {
      failed('the WebSocket could not be opened'); // e.g. refused by a page's CSP
      return;
    }
    socket = opened;
    acked = false;
    subscription = null;
    armWatchdog(HANDSHAKE_TIMEOUT_MS); // until the ack; after it, the keep-alive watchdog
    opened.addEventListener('open', () => {
      if (socket === opened) send({ type: 'connection_init' });
    });
    opened.addEventListener('message', (event: { data: unknown }) => {
      if (socket === opened) receive(event.data, channel, auth);
    });
    opened.addEventListener('close', () => {
      if (socket === opened) failed(); // not one closed on purpose
    });
    opened.addEventListener('error', () => undefined); // the close event follows
  }

  options.onState?.('connecting');
  void readTop(); // something to show at once, while the connection is made (edge-cached)
  void connect();

  return {
    get state() {
      return state;
    },
    get fallback() {
      return fallback;
    },
    close() {
      if (closed) return;
      clearTimeout(retryTimer);
      clearTimeout(pollTimer);
      if (subscription && acked) send({ type: 'unsubscribe', id: subscription.id });
      closeSocket();
      report('closed');
      closed = true;
    },
  };
}
