/* A receipt checked against the served JWKS (docs/PROVING.md, "Receipts" and "Keys, rotation and revocation"),
 * with `jose` (WebCrypto's Ed25519: browsers and Node 20 alike): a compact JWS, header {"alg": "EdDSA", "kid",
 * "typ": "JWT"}, signed by a key the JWKS lists. What each key status verifies:
 *   - current: everything it signs;
 *   - retired: only what is dated before its `retired_at` (the payload's `at` and `iat`); without `retired_at`, nothing;
 *   - revoked: nothing, whatever date the payload carries;
 *   - a kid the JWKS does not list: nothing.
 * This checks the signature and the key's status, not the rank against the log: that is the shipped verifier's
 * replay (`python -m leaderboard_verify --receipt`). */

import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';

import type { components } from './generated/openapi.js';
import { ReceiptError } from './errors.js';

export type Jwks = components['schemas']['Jwks'];
export type JwksKey = Jwks['keys'][number];

/** What a receipt signs (docs/PROVING.md, "Receipts"). */
export interface ReceiptClaims {
  board_id: string;
  generation: string;
  period_id: string;
  player_id: string;
  player: string;
  order: 'asc' | 'desc';
  rank: number;
  score: number;
  total_players: number;
  seq: number;
  head_hash: string;
  at: string;
  iat: number;
  [field: string]: unknown;
}

/** A verified receipt: its claims and the key that signed it. */
export interface VerifiedReceipt {
  claims: ReceiptClaims;
  kid: string;
  keyStatus: JwksKey['status'];
}

/** An RFC 3339 date-time with its offset, in ms since the epoch; null for anything else. */
function moment(text: unknown): number | null {
  if (typeof text !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

const INTEGER_CLAIMS = ['rank', 'score', 'total_players', 'seq', 'iat'] as const;
const TEXT_CLAIMS = ['board_id', 'generation', 'period_id', 'player_id', 'player', 'order', 'head_hash', 'at'] as const;

function claimsOf(payload: Uint8Array): ReceiptClaims {
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw new ReceiptError('malformed', 'the payload is not JSON');
  }
  if (!claims || typeof claims !== 'object' || Array.isArray(claims)) {
    throw new ReceiptError('malformed', 'the payload is not a JSON object');
  }
  const c = claims as Record<string, unknown>;
  for (const field of INTEGER_CLAIMS) {
    if (!Number.isInteger(c[field])) throw new ReceiptError('claims', `${field} is not an integer`);
  }
  for (const field of TEXT_CLAIMS) {
    if (typeof c[field] !== 'string') throw new ReceiptError('claims', `${field} is not text`);
  }
  if (moment(c.at) === null) throw new ReceiptError('claims', `at ${JSON.stringify(c.at)} is not an RFC 3339 time`);
  return c as ReceiptClaims;
}

/** Verifies a receipt (its compact JWS) against a JWKS as `GET /.well-known/jwks.json` serves it: the claims, or a
 * ReceiptError (`reason`: malformed, unknown_key, signature, revoked, retired, claims). */
export async function verifyReceipt(receipt: string, jwks: Jwks): Promise<VerifiedReceipt> {
  if (typeof receipt !== 'string' || receipt.split('.').length !== 3) {
    throw new ReceiptError('malformed', 'not a compact JWS (three base64url parts)');
  }
  let header: { alg?: unknown; kid?: unknown };
  try {
    header = decodeProtectedHeader(receipt);
  } catch {
    throw new ReceiptError('malformed', 'the header is not base64url JSON');
  }
  if (header.alg !== 'EdDSA') throw new ReceiptError('malformed', `alg ${JSON.stringify(header.alg)} is not EdDSA`);
  const key = (jwks?.keys ?? []).find((k) => k.kid === header.kid);
  if (typeof header.kid !== 'string' || !key) {
    throw new ReceiptError('unknown_key', `key ${JSON.stringify(header.kid)} is not in the JWKS`);
  }
  if (key.status === 'revoked') {
    throw new ReceiptError('revoked', `key ${key.kid} is revoked (revoked_at ${key.revoked_at ?? 'not given'})`);
  }
  if (key.status !== 'current' && key.status !== 'retired') {
    throw new ReceiptError('unknown_key', `key ${key.kid} has status ${JSON.stringify(key.status)}`);
  }
  let payload: Uint8Array;
  try {
    const publicKey = await importJWK({ kty: key.kty, crv: key.crv, x: key.x }, 'EdDSA');
    ({ payload } = await compactVerify(receipt, publicKey, { algorithms: ['EdDSA'] }));
  } catch {
    throw new ReceiptError('signature', `the signature does not verify with key ${key.kid}`);
  }
  const claims = claimsOf(payload);
  if (key.status === 'retired') {
    const retiredAt = moment(key.retired_at);
    if (retiredAt === null) {
      throw new ReceiptError('retired', `key ${key.kid} is retired without a retired_at: it verifies nothing`);
    }
    const at = moment(claims.at) as number;
    if (at >= retiredAt || claims.iat * 1000 >= retiredAt) {
      throw new ReceiptError('retired',
        `at ${claims.at} (iat ${claims.iat}) is at or after key ${key.kid}'s retired_at ${key.retired_at}`);
    }
  }
  return { claims, kid: key.kid, keyStatus: key.status };
}
