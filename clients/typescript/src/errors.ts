/** A refusal of the API (a 4xx or 5xx) to a hand-written flow: its status, the `error` text the API sends
 * (`{"error": "..."}`: docs/API.md), the body, and the Retry-After the server gave (429, 503). The generated
 * operations (lb.api) do not throw: they answer openapi-fetch's `{data, error, response}`. */
export class LeaderboardError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly retryAfterMs: number | null;

  constructor(status: number, body: unknown, retryAfterMs: number | null = null) {
    const text = body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string'
      ? (body as { error: string }).error : `HTTP ${status}`;
    super(`${status}: ${text}`);
    this.name = 'LeaderboardError';
    this.status = status;
    this.body = body;
    this.retryAfterMs = retryAfterMs;
  }
}
