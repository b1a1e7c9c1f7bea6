/* Live updates through AWS AppSync Events: the page follows the board and period on screen on the Event API's
 * channel for them, with nothing but the browser's WebSocket (no SDK). Where to connect, what to send as
 * authorization and which channel carries which period all come from the board's discovery read,
 * GET /leaderboards/{board} (its `live` field: docs/API.md, "Live updates"); each connection gets a short-lived
 * subscribe token of its own (GET /leaderboards/{board}/scores), which the Event API's Lambda authorizer
 * checks on connect and on each subscribe (a few of them per token); the same code runs against AppSync on
 * AWS and against make run's local stand-in. The table renders each pushed top and polls the edge-cached top only
 * while this is not live: the board has no `live` field (live updates off), the socket cannot open or drops, the
 * subscription is refused, or `?live=off`. A failed connection is tried again with jittered backoff (1 s, 2 s,
 * 4 s ... 30 s); the page polls meanwhile.
 *
 * The protocol, as AWS documents it ("Understanding the Event API WebSocket protocol",
 * https://docs.aws.amazon.com/appsync/latest/eventapi/event-api-websocket-protocol.html):
 *   - connect to `wss://<realtime domain>/event/realtime` offering two subprotocols, `aws-appsync-event-ws` and
 *     `header-<base64url of the authorization JSON>` ({"host": <the API's HTTP host>, "Authorization": <token>});
 *   - send {"type": "connection_init"}; AppSync answers {"type": "connection_ack", "connectionTimeoutMs"} and then
 *     sends {"type": "ka"} keep-alives: a client that hears nothing for connectionTimeoutMs closes the connection;
 *   - {"type": "subscribe", "id", "channel", "authorization"} (a unique id per subscription) is answered with
 *     {"type": "subscribe_success", "id"} or {"type": "subscribe_error", "id", "errors": [{errorType, message}]};
 *   - each event published on the channel arrives as {"type": "data", "id", "event": "<JSON string>"};
 *   - {"type": "unsubscribe", "id"} ends a subscription ({"type": "unsubscribe_success", "id"});
 *   - connection-level failures come as {"type": "error"|"connection_error", "errors": [...]}, and an event that
 *     could not be delivered as {"type": "broadcast_error", "id", "errors"}.
 * An event here is the top message the broadcaster publishes: {"type": "top", "board", "period" (the kind),
 * "period_id", "entries"} (the top 25). */

import { api } from './api.js';
import { request } from './request.js';

const SUBPROTOCOL = 'aws-appsync-event-ws';
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30000;
const HANDSHAKE_TIMEOUT_MS = 5000; // open + connection_ack by then, or the attempt counts as failed (the page polls)
const SUBSCRIBE_TIMEOUT_MS = 5000; // subscribe_success by then, or the same
const DEFAULT_KEEPALIVE_TIMEOUT_MS = 300000; // AppSync's connectionTimeoutMs (5 minutes) until the ack says

const live = {
  disabled: false,
  wanted: null, // {board, period} on screen
  target: null, // {board, period, endpoint, host, channel}: what the wanted view is followed on (from discovery)
  socketAuth: null, // {host, Authorization}: the open socket's token, sent again with each subscribe
  discovery: new Map(), // board -> Promise of its `live` field (null: live updates off for it)
  socket: null,
  socketKey: '', // the endpoint and authorization the open socket was made with
  acked: false, // connection_ack received on this socket
  subscription: null, // {id, channel, board, period, ok}: the one subscription this page holds
  retryMs: FIRST_RETRY_MS,
  retryTimer: null,
  keepaliveMs: DEFAULT_KEEPALIVE_TIMEOUT_MS,
  watchdog: null,
  subscribeTimer: null,
  reported: 'polling', // what hooks.onState was last told
};
let hooks = { onTop() {}, onState() {} };

/** hooks.onTop(message): a pushed top for the view on screen; hooks.onState(state): "live" or "polling". */
export function startLive(options) {
  hooks = { ...hooks, ...options };
  live.disabled = new URLSearchParams(location.search).get('live') === 'off' || typeof WebSocket !== 'function';
}

/** Whether pushes keep the view on screen up to date: the socket is acknowledged and AppSync accepted the
 * subscription to the channel of the board and period on screen. */
export function isLive() {
  const { subscription: sub, wanted } = live;
  return Boolean(live.socket && live.acked && sub && sub.ok && wanted
    && sub.board === wanted.board && sub.period === wanted.period);
}

/** Follow the board and period on screen (their channel; the previous one is unsubscribed). */
export function follow(board, period) {
  const before = live.wanted;
  live.wanted = { board, period };
  if (live.disabled || (before && before.board === board && before.period === period)) return;
  connectWanted();
}

/** The board's `live` field, read once per page (GET /leaderboards/{board}, edge-cached); null when it has none. */
function discover(board) {
  if (!live.discovery.has(board)) {
    const reading = request(api.board(board)).then(
      ({ data }) => validLive(data && data.live),
      (err) => {
        if (err.status >= 400 && err.status < 500) return null; // e.g. a board deleted: nothing to follow
        live.discovery.delete(board); // no answer: asked again on the next attempt
        throw err;
      },
    );
    live.discovery.set(board, reading);
  }
  return live.discovery.get(board);
}

function validLive(info) {
  if (!info || typeof info.realtime_url !== 'string' || !/^wss?:\/\//.test(info.realtime_url)) return null;
  if (typeof info.http_host !== 'string' || !info.channels || typeof info.channels !== 'object') return null;
  return info;
}

/** Find the channel of the view on screen and follow it: on the open socket, or on a new one. */
async function connectWanted() {
  clearTimeout(live.retryTimer);
  const wanted = live.wanted;
  if (!wanted) return;
  let info;
  try {
    info = await discover(wanted.board);
  } catch (_) {
    if (live.wanted === wanted) failed(); // the API did not answer: poll, and ask again later
    return;
  }
  if (live.wanted !== wanted) return; // the view changed meanwhile: its own call goes on
  const channel = info && typeof info.channels[wanted.period] === 'string' ? info.channels[wanted.period] : '';
  if (!channel) {
    // Live updates are off (no `live` field) or this period has no channel: polling, no socket.
    live.target = null;
    unsubscribe();
    closeSocket();
    report('polling');
    return;
  }
  live.target = { ...wanted, endpoint: info.realtime_url, host: info.http_host, channel };
  const key = JSON.stringify([info.realtime_url, wanted.board]); // a token is good for one board's channels
  if (live.socket && live.socketKey === key) {
    if (live.acked) subscribe(); // otherwise the ack subscribes
    return;
  }
  closeSocket();
  let token;
  try {
    ({ data: { token } } = await request(api.liveToken(wanted.board)));
  } catch (_) {
    if (live.wanted === wanted) failed(); // none handed out now (429, live off): poll, and ask again later
    return;
  }
  if (live.wanted !== wanted || live.socket) return; // the view changed meanwhile: its own call goes on
  if (typeof token !== 'string' || !token) {
    failed();
    return;
  }
  open(key, { host: info.http_host, Authorization: token });
}

/** base64url (RFC 4648 §5, no padding) of the UTF-8 JSON of `value`: the `header-` subprotocol's form. */
function base64url(value) {
  let binary = '';
  for (const byte of new TextEncoder().encode(JSON.stringify(value))) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function uniqueId() {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`; // not a secure context
}

function open(key, auth) {
  const { endpoint } = live.target;
  let socket;
  try {
    socket = new WebSocket(endpoint, [SUBPROTOCOL, `header-${base64url(auth)}`]);
  } catch (_) {
    failed(); // e.g. refused by the page's CSP
    return;
  }
  live.socket = socket;
  live.socketKey = key;
  live.socketAuth = auth;
  live.acked = false;
  live.subscription = null;
  // Until the ack: the handshake's own deadline; after it, the keep-alive watchdog.
  armWatchdog(HANDSHAKE_TIMEOUT_MS);
  socket.addEventListener('open', () => send({ type: 'connection_init' }));
  socket.addEventListener('message', (event) => {
    if (live.socket === socket) receive(event.data);
  });
  socket.addEventListener('close', () => {
    if (live.socket !== socket) return; // one this page closed on purpose
    live.socket = null;
    live.subscription = null;
    live.acked = false;
    failed();
  });
}

function receive(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch (_) {
    return; // not JSON: nothing of the protocol
  }
  if (!message || typeof message.type !== 'string') return;
  const sub = live.subscription;
  const ours = sub && message.id === sub.id;
  switch (message.type) {
    case 'connection_ack':
      live.acked = true;
      live.keepaliveMs = Number(message.connectionTimeoutMs) > 0
        ? Number(message.connectionTimeoutMs) : DEFAULT_KEEPALIVE_TIMEOUT_MS;
      armWatchdog(live.keepaliveMs);
      subscribe();
      break;
    case 'ka':
      if (live.acked) armWatchdog(live.keepaliveMs);
      break;
    case 'subscribe_success':
      if (!ours) break;
      clearTimeout(live.subscribeTimer);
      sub.ok = true;
      live.retryMs = FIRST_RETRY_MS; // a working connection: the next failure starts the backoff again
      // Told on every new subscription, so the table reads the view's top once now: AppSync sends no current
      // state, only the events published from now on (the read is edge-cached).
      report('live', true);
      break;
    case 'subscribe_error':
      // Refused (a spent or expired token, live switched off, unknown channel): poll, and try again later on a
      // new connection with a new token.
      if (ours) dropSocket();
      break;
    case 'data':
      if (ours && sub.ok) deliver(message.event);
      break;
    case 'error':
    case 'connection_error':
      if (!message.id || ours) dropSocket(); // the connection or our subscription failed
      break;
    default:
      // unsubscribe_success / unsubscribe_error (of an earlier view), broadcast_error (an event AppSync could not
      // deliver; the next one carries the whole top again, and the table's safety re-read catches up)
      break;
  }
}

/** A data message's event: one JSON string (an array of them is read too); each is a top message. */
function deliver(event) {
  const wanted = live.wanted;
  for (const text of Array.isArray(event) ? event : [event]) {
    let top;
    try {
      top = typeof text === 'string' ? JSON.parse(text) : text;
    } catch (_) {
      continue;
    }
    if (!top || top.type !== 'top' || !Array.isArray(top.entries)) continue;
    if (!wanted || top.board !== wanted.board || top.period !== wanted.period) continue;
    hooks.onTop(top);
  }
}

function subscribe() {
  const target = live.target;
  if (!target || !live.socket || !live.acked) return;
  const sub = live.subscription;
  if (sub && sub.channel === target.channel && sub.board === target.board && sub.period === target.period) return;
  unsubscribe();
  const id = uniqueId();
  // Until AppSync accepts it isLive() is false, so the table polls the new view meanwhile.
  live.subscription = { id, channel: target.channel, board: target.board, period: target.period, ok: false };
  send({ type: 'subscribe', id, channel: target.channel, authorization: live.socketAuth });
  clearTimeout(live.subscribeTimer);
  live.subscribeTimer = setTimeout(() => {
    if (live.subscription && live.subscription.id === id && !live.subscription.ok) dropSocket();
  }, SUBSCRIBE_TIMEOUT_MS);
}

function unsubscribe() {
  const sub = live.subscription;
  live.subscription = null;
  clearTimeout(live.subscribeTimer);
  if (sub && live.socket && live.acked) send({ type: 'unsubscribe', id: sub.id });
}

function send(message) {
  try {
    live.socket.send(JSON.stringify(message));
  } catch (_) {
    // closing: the close handler takes over
  }
}

function armWatchdog(ms) {
  clearTimeout(live.watchdog);
  const socket = live.socket;
  live.watchdog = setTimeout(() => {
    if (live.socket === socket) dropSocket(); // no ack or keep-alive in time: the connection is dead
  }, ms);
}

/** Close the socket on purpose (no retry from its close event). */
function closeSocket() {
  clearTimeout(live.watchdog);
  clearTimeout(live.subscribeTimer);
  const socket = live.socket;
  live.socket = null;
  live.socketKey = '';
  live.socketAuth = null;
  live.acked = false;
  live.subscription = null;
  if (socket) {
    try {
      socket.close();
    } catch (_) {
      // already closed
    }
  }
}

/** Give up on this connection: poll, and try again with backoff. */
function dropSocket() {
  closeSocket();
  failed();
}

function failed() {
  clearTimeout(live.watchdog);
  report('polling');
  clearTimeout(live.retryTimer);
  // "Equal jitter": half the delay fixed, half random, so that many pages that lost AppSync at once do not all
  // come back in the same second.
  const delay = live.retryMs / 2 + Math.random() * (live.retryMs / 2);
  live.retryTimer = setTimeout(connectWanted, delay);
  live.retryMs = Math.min(live.retryMs * 2, MAX_RETRY_MS);
}

function report(mode, always = false) {
  if (mode === live.reported && !always) return;
  live.reported = mode;
  hooks.onState(mode);
}
