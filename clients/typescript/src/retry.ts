/* Retries, as a fetch wrapper handed to openapi-fetch: every call of the client goes through it, the generated
 * operations (lb.api) as well as the hand-written flows.
 *
 * What is retried: a 429 (the API's per-player and live-token limits, API Gateway's throttles) after its
 * Retry-After, and a 5xx or a network error after a jittered backoff; but only a request that is safe to send
 * twice: GET, HEAD, OPTIONS, PUT, DELETE (idempotent in HTTP's sense), or a POST/PATCH that carries an
 * Idempotency-Key (the API answers a repeat from its record and changes nothing: docs/API.md, "Idempotency-Key").
 * A Retry-After longer than `maxDelayMs` is not waited out: the response is handed back as it is (the caller
 * sees the 429 and its `retryAfterMs`), since a retry sooner than the server said would be refused again. */

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 switches retries off). */
  attempts?: number;
  /** The longest wait before a retry, in ms (default 30 000): a longer Retry-After is not waited out. */
  maxDelayMs?: number;
  /** The first backoff of a 5xx or network error, in ms (default 250), doubled on each attempt. */
  baseDelayMs?: number;
  /** Told before each retry (for logs, metrics, tests). */
  onRetry?(info: RetryInfo): void;
}

export interface RetryInfo {
  attempt: number; // the attempt that failed (1: the first)
  method: string;
  url: string;
  status: number | null; // null: a network error
  retryAfterMs: number | null; // the server's Retry-After, when it sent one
  delayMs: number; // the wait before the next attempt
}

type Fetch = (input: Request) => Promise<Response>;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Whether a request may be sent again: an idempotent method, or a POST/PATCH with an Idempotency-Key. */
export function isRetriable(request: Request): boolean {
  return SAFE_METHODS.has(request.method.toUpperCase()) || request.headers.has('Idempotency-Key');
}

/** Retry-After in ms: delta-seconds, or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function retryAfterMs(response: Response, now: number = Date.now()): number | null {
  const value = response.headers.get('Retry-After');
  if (value === null || value.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** "Equal jitter": half the exponential delay fixed, half random, so clients that failed together spread out. */
function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

const about = (request: Request, attempt: number) => ({ attempt, method: request.method, url: request.url });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function retryingFetch(base: Fetch, options: RetryOptions = {}): Fetch {
  const attempts = Math.max(1, Math.floor(options.attempts ?? 4));
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 250;
  return async (request: Request): Promise<Response> => {
    if (attempts === 1 || !isRetriable(request)) return base(request);
    for (let attempt = 1; ; attempt++) {
      const last = attempt === attempts;
      // Each attempt sends a copy: a body can be read once, and the original stays whole for the next one.
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await base(sent);
      } catch (err) {
        if (last || request.signal?.aborted) throw err;
        const delayMs = backoffMs(attempt, baseDelayMs, maxDelayMs);
        options.onRetry?.({ ...about(request, attempt), status: null, retryAfterMs: null, delayMs });
        await sleep(delayMs);
        continue;
      }
      if (last || !(response.status === 429 || response.status >= 500)) return response;
      const told = retryAfterMs(response);
      if (told !== null && told > maxDelayMs) return response; // the server asks for longer than the caller waits
      const delayMs = told ?? backoffMs(attempt, baseDelayMs, maxDelayMs);
      options.onRetry?.({ ...about(request, attempt), status: response.status, retryAfterMs: told, delayMs });
      await response.body?.cancel().catch(() => undefined); // frees the connection
      await sleep(delayMs);
    }
  };
}
