/* The one way the page talks to the server: fetch, timed, JSON in and out, failures in words, and
 * turns in which only the latest answer counts. */

export class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.name = 'ApiError';
    this.status = status; // 0: no answer at all
    this.body = body;
  }
}

/** Thrown instead of the answer (or error) of a request whose turn a newer one has replaced: ignore it. */
export class Superseded extends Error {
  constructor() {
    super('superseded by a newer request');
    this.name = 'Superseded';
  }
}

const observers = [];

/** observer(method, url, status or "network error", ms) after every request that got an answer or failed. */
export function onRequest(observer) {
  observers.push(observer);
}

function report(method, url, status, ms) {
  for (const observer of observers) observer(method, url, status, ms);
}

function describeFailure(status, body) {
  const detail = body && typeof body.error === 'string' ? body.error : '';
  if (status === 0) return 'Dashboard server unreachable (network error)';
  if (status === 502 || status === 503 || status === 504) {
    const extra = detail && !/^API unreachable/i.test(detail) ? `: ${detail}` : '';
    return `API unreachable (HTTP ${status})${extra}`;
  }
  if (status === 401) return 'Admin sign-in required (HTTP 401)';
  if (status === 429) return 'Too many requests (HTTP 429): slow down a little';
  return `API error (HTTP ${status})${detail ? `: ${detail}` : ''}`;
}

/**
 * How old an answer may be when it arrives: a shared cache (the edge the dashboard's /api/ reads through) keeps it
 * up to max-age and serves it up to stale-while-revalidate past that (RFC 9111, RFC 5861). A change made at time t
 * shows in every read that starts after t + this. 0: not kept (no-store, no-cache) or no Cache-Control.
 */
export function cacheLagMs(cacheControl) {
  const text = String(cacheControl || '').toLowerCase();
  if (!text || /\b(no-store|no-cache|private)\b/.test(text)) return 0;
  const seconds = (name) => {
    const found = new RegExp(`(?:^|[,\\s])${name}=(\\d+)`).exec(text);
    return found ? Number(found[1]) : 0;
  };
  const maxAge = /\bs-maxage=/.test(text) ? seconds('s-maxage') : seconds('max-age');
  return (maxAge + seconds('stale-while-revalidate')) * 1000;
}

/**
 * fetch + JSON, timed. Resolves {status, data, ms, lagMs} (lagMs: cacheLagMs of the answer); rejects with ApiError
 * (or the AbortError of an abort).
 */
export async function request(url, options = {}) {
  const method = options.method || 'GET';
  const started = performance.now();
  let response;
  try {
    response = await fetch(url, {
      cache: 'no-store',
      credentials: 'same-origin',
      ...options,
      headers: { Accept: 'application/json', ...(options.headers || {}) },
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    report(method, url, 'network error', performance.now() - started);
    throw new ApiError(describeFailure(0), 0, null);
  }
  const text = await response.text();
  const ms = performance.now() - started;
  report(method, url, response.status, ms);
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (_) {
      data = undefined;
    }
  }
  if (!response.ok) throw new ApiError(describeFailure(response.status, data), response.status, data);
  if (data === undefined) {
    throw new ApiError(`Unexpected response (HTTP ${response.status}, not JSON)`, response.status, null);
  }
  return { status: response.status, data, ms, lagMs: cacheLagMs(response.headers.get('Cache-Control')) };
}

/**
 * Every page of a paged read (the API bounds each call's cost and pages the rest): `read(cursor)` resolves one
 * page as `request` does (cursor undefined for the first). The `field` lists are joined, following
 * next_cursor for at most `maxPages` pages; ms adds up.
 */
export async function allPages(read, field, maxPages = 25) {
  const listOf = (answer) => (Array.isArray(answer.data && answer.data[field]) ? answer.data[field] : []);
  let answer = await read(undefined);
  const items = [...listOf(answer)];
  let { ms } = answer;
  for (let n = 1; n < maxPages && answer.data && answer.data.next_cursor; n += 1) {
    answer = await read(answer.data.next_cursor);
    items.push(...listOf(answer));
    ms += answer.ms;
  }
  const { next_cursor: _, ...rest } = answer.data || {};
  return { ...answer, data: { ...rest, [field]: items }, ms };
}

/** POST a JSON body. */
export const post = (url, body) =>
  request(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

/**
 * A series of turns in which only the latest counts: `begin()` starts a turn and aborts the previous
 * one's requests. A turn's `request` resolves like `request` above while the turn is current, and
 * rejects with Superseded once a newer turn has begun, whatever the server answered.
 * A turn may make several requests (a lookup reads a player's boards, then the players around them).
 */
export function latestOnly() {
  let active = null;
  return {
    begin() {
      if (active) active.abort();
      const controller = new AbortController();
      active = controller;
      const isCurrent = () => active === controller;
      return {
        get current() {
          return isCurrent();
        },
        async request(url, options = {}) {
          let answer;
          try {
            answer = await request(url, { ...options, signal: controller.signal });
          } catch (err) {
            throw isCurrent() ? err : new Superseded();
          }
          if (!isCurrent()) throw new Superseded();
          return answer;
        },
      };
    },
  };
}
