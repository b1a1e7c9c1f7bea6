/* Live updates: one WebSocket to the page's own origin (Nginx proxies /live to the API's WebSocket API), following
 * the board and period on screen. The API pushes the top 25 at once and whenever it changes (at most once a second);
 * the table renders what is pushed and polls only while the socket is down. A socket that cannot open or drops
 * is tried again with backoff (1 s, 2 s, 4 s ... 30 s); the page polls meanwhile.
 *
 * Messages (docs/API.md, "Live updates"): {"action": "subscribe"|"unsubscribe", "board", "period"} out;
 * {"type": "top"|"unsubscribed"|"error", ...} in. */

import { config } from './state.js';

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30000;
const OPEN_TIMEOUT_MS = 5000; // a socket still not open by then counts as failed (the page keeps polling)
// API Gateway closes a connection that has not sent anything for 10 minutes: subscribing again (answered with the
// top, a no-op otherwise) keeps an open page's socket alive.
const KEEPALIVE_MS = 5 * 60 * 1000;

const live = {
  socket: null,
  following: null, // {board, period} asked for on this socket
  wanted: null, // {board, period} on screen
  subscribed: false, // the API has answered the current subscription with a top
  retryMs: FIRST_RETRY_MS,
  retryTimer: null,
  disabled: false,
};
let hooks = { onTop() {}, onState() {} };

/** The page's /live on its own origin: wss on an https page (CloudFront), ws on http (make run). */
function liveUrl() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${config().liveBase}`;
}

/** hooks.onTop(message): a pushed top for the view on screen; hooks.onState(state): "live" or "polling". */
export function startLive(options) {
  hooks = { ...hooks, ...options };
  live.disabled = new URLSearchParams(location.search).get('live') === 'off';
  if (live.disabled || typeof WebSocket !== 'function') {
    hooks.onState('polling');
    return;
  }
  open();
}

/** Whether pushes keep the view on screen up to date (the socket is open and the API answered the subscription). */
export const isLive = () => live.subscribed && live.socket !== null && live.socket.readyState === WebSocket.OPEN;

/** Follow the board and period on screen (an empty period: the board's default). */
export function follow(board, period) {
  live.wanted = { board, period };
  if (!live.socket || live.socket.readyState !== WebSocket.OPEN) return;
  const before = live.following;
  if (before && before.board === board && before.period === period) return;
  if (before) send({ action: 'unsubscribe', ...message(before) });
  subscribe();
}

function message({ board, period }) {
  return period ? { board, period } : { board };
}

function send(data) {
  try {
    live.socket.send(JSON.stringify(data));
  } catch (_) {
    // closing: the close handler takes over
  }
}

function subscribe() {
  live.following = live.wanted;
  live.subscribed = false;
  if (live.wanted) send({ action: 'subscribe', ...message(live.wanted) });
}

function setState(kind) {
  hooks.onState(kind);
}

function open() {
  clearTimeout(live.retryTimer);
  let socket;
  try {
    socket = new WebSocket(liveUrl());
  } catch (_) {
    retryLater();
    return;
  }
  live.socket = socket;
  const openTimer = setTimeout(() => socket.close(), OPEN_TIMEOUT_MS);
  let keepalive = null;
  socket.addEventListener('open', () => {
    clearTimeout(openTimer);
    live.following = null;
    subscribe();
    keepalive = setInterval(() => {
      if (live.following) send({ action: 'subscribe', ...message(live.following) });
    }, KEEPALIVE_MS);
  });
  socket.addEventListener('message', (event) => {
    let data;
    try {
      data = JSON.parse(event.data);
    } catch (_) {
      return;
    }
    const wanted = live.wanted;
    if (!data || !wanted || data.board !== wanted.board) return;
    if (data.type === 'top' && (!wanted.period || data.period === wanted.period)) {
      live.retryMs = FIRST_RETRY_MS; // a working socket: the next failure starts the backoff again
      if (!live.subscribed) {
        live.subscribed = true;
        setState('live');
      }
      hooks.onTop(data);
    } else if (data.type === 'error') {
      live.subscribed = false; // e.g. a board deleted meanwhile: polling shows what the API says
      setState('polling');
    }
  });
  socket.addEventListener('close', () => {
    clearTimeout(openTimer);
    clearInterval(keepalive);
    if (live.socket !== socket) return;
    live.socket = null;
    live.subscribed = false;
    live.following = null;
    setState('polling');
    retryLater();
  });
}

function retryLater() {
  clearTimeout(live.retryTimer);
  live.retryTimer = setTimeout(open, live.retryMs);
  live.retryMs = Math.min(live.retryMs * 2, MAX_RETRY_MS);
}
