/** A refusal of the API (a 4xx or 5xx) to a hand-written flow: its status, a short code named after the status,
 * the `error` text the API sends (`{"error": "..."}`: docs/API.md) as `detail`, the body, and the Retry-After the
 * server gave (429, 503). The message is `<status> <code>: <detail>`, e.g. `404 not_found: no leaderboard race`:
 * one line that a log or an uncaught error shows whole. The generated operations (lb.api) do not throw: they
 * answer openapi-fetch's `{data, error, response}`. */
export class LeaderboardError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly body: unknown;
  readonly retryAfterMs: number | null;

  constructor(status: number, body: unknown, retryAfterMs: number | null = null) {
    const text = body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string'
      ? (body as { error: string }).error : `HTTP ${status}`;
    const code = errorCode(status);
    super(`${status} ${code}: ${text}`);
    this.name = 'LeaderboardError';
    this.status = status;
    this.code = code;
    this.detail = text;
    this.body = body;
    this.retryAfterMs = retryAfterMs;
  }
}

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  414: 'uri_too_long',
  422: 'unprocessable',
  429: 'too_many_requests',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'unavailable',
  504: 'gateway_timeout',
};

/** The code of a status: the API's statuses by name (docs/API.md, "Errors"), any other as `http_<status>`. */
export function errorCode(status: number): string {
  return CODES[status] ?? `http_${status}`;
}

/** A receipt that does not verify against the JWKS: `reason` says which check refused it. */
export class ReceiptError extends Error {
  readonly reason: 'malformed' | 'unknown_key' | 'signature' | 'revoked' | 'retired' | 'claims';

  constructor(reason: ReceiptError['reason'], message: string) {
    super(`receipt refused (${reason}): ${message}`);
    this.name = 'ReceiptError';
    this.reason = reason;
  }
}
