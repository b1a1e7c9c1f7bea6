/* The SDK's parts that need no stack: Retry-After parsing, which requests may be sent twice and how often (a
 * scripted fetch: the real 429 is retry.test.ts's), the subprotocol's encoding, a token's subject, the bundle. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { CompactSign, exportJWK, generateKeyPair } from 'jose';

import {
  base64url, errorCode, isRetriable, LeaderboardError, ReceiptError, retryAfterMs, retryingFetch, tokenSubject,
  verifyReceipt,
} from '@cdk-leaderboard/client';

test('Retry-After in seconds or as an HTTP date; absent or unreadable is null', () => {
  const at = (value: string) => new Response(null, { headers: { 'Retry-After': value } });
  assert.equal(retryAfterMs(at('7')), 7000);
  assert.equal(retryAfterMs(at('Thu, 01 Jan 2026 00:00:10 GMT'), Date.parse('2026-01-01T00:00:00Z')), 10_000);
  assert.equal(retryAfterMs(at('soon')), null);
  assert.equal(retryAfterMs(new Response(null)), null);
});

test('only requests safe to send twice are retried: idempotent methods, or a POST with an Idempotency-Key', () => {
  const url = 'http://127.0.0.1/';
  assert.equal(isRetriable(new Request(url)), true);
  assert.equal(isRetriable(new Request(url, { method: 'DELETE' })), true);
  assert.equal(isRetriable(new Request(url, { method: 'POST' })), false);
  assert.equal(isRetriable(new Request(url, { method: 'PATCH' })), false);
  assert.equal(isRetriable(new Request(url, { method: 'POST', headers: { 'Idempotency-Key': 'k' } })), true);
});

test('the header- subprotocol carries base64url JSON without padding', () => {
  const auth = { host: 'example.com', Authorization: 'tok+/é' };
  const encoded = base64url(auth);
  assert.match(encoded, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')), auth);
});

test("a token's subject is read without its key; anything else is refused", () => {
  const payload = Buffer.from(JSON.stringify({ sub: 'p-ada', aud: 'leaderboard:player' })).toString('base64url');
  assert.equal(tokenSubject(`e30.${payload}.sig`), 'p-ada');
  assert.throws(() => tokenSubject('not-a-token'), TypeError);
});

test('the browser bundle is one self-contained module: no imports, no Node built-ins', () => {
  const bundle = readFileSync(new URL('../dist/browser/leaderboard-client.js', import.meta.url), 'utf8');
  assert.doesNotMatch(bundle, /^\s*import\s/m);
  assert.doesNotMatch(bundle, /\brequire\(|from ["']node:/);
  assert.match(bundle, /export\s*\{[^}]*createLeaderboardClient/);
});

/** A fetch that answers from a script, recording what each attempt sent (the body too: a retry must resend it). */
function scripted(...answers: (number | Error)[]) {
  const sent: { method: string; body: string }[] = [];
  const fetch = async (request: Request) => {
    sent.push({ method: request.method, body: await request.text() });
    const answer = answers.shift() ?? 200;
    if (answer instanceof Error) throw answer;
    return new Response('{}', { status: answer, headers: answer === 429 ? { 'Retry-After': '0' } : {} });
  };
  return { sent, fetch };
}

test('a 5xx and a network error are retried with backoff, the body sent again whole', async () => {
  const { sent, fetch } = scripted(503, new TypeError('fetch failed'), 200);
  const retried = retryingFetch(fetch, { baseDelayMs: 1 });
  const body = JSON.stringify({ player_id: 'p', score: 1 });
  const response = await retried(new Request('http://127.0.0.1/x', {
    method: 'POST', body, headers: { 'Idempotency-Key': 'k1' },
  }));
  assert.equal(response.status, 200);
  assert.deepEqual(sent, Array(3).fill({ method: 'POST', body }));
});

test('a POST without an Idempotency-Key is sent once, whatever the answer', async () => {
  const { sent, fetch } = scripted(503, 200);
  const once = retryingFetch(fetch, { baseDelayMs: 1 });
  const response = await once(new Request('http://127.0.0.1/x', { method: 'POST' }));
  assert.equal(response.status, 503);
  assert.equal(sent.length, 1);
});

test('attempts bound the retries; the last answer is handed back', async () => {
  const { sent, fetch } = scripted(429, 429, 429, 200);
  const response = await retryingFetch(fetch, { attempts: 3 })(new Request('http://127.0.0.1/x'));
  assert.equal(response.status, 429);
  assert.equal(sent.length, 3);
});

/** A receipt as the API signs one (docs/PROVING.md), with a key of this test's own, and its JWKS entry. */
async function signed(claims: Record<string, unknown> = {}) {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(publicKey);
  const at = '2026-12-02T04:00:00.000Z';
  const payload = {
    board_id: 'race', generation: '0', period_id: 'all-time', player_id: 'p-ada', player: 'c0ffee', order: 'desc',
    rank: 1, score: 4200, total_players: 2, seq: 7, head_hash: 'ab'.repeat(32), at, iat: Date.parse(at) / 1000,
    ...claims,
  };
  const kid = 'k-test';
  const receipt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
    .sign(privateKey);
  const key = { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, kid, alg: 'EdDSA', use: 'sig', status: 'current' } as const;
  return { receipt, key, payload };
}

const refusedFor = (reason: string) => (err: unknown) => err instanceof ReceiptError && err.reason === reason;

test('verifyReceipt: accepted as signed; refused tampered, under another key, unknown kid, malformed', async () => {
  const { receipt, key } = await signed();
  const ok = await verifyReceipt(receipt, { keys: [key] });
  assert.deepEqual([ok.claims.rank, ok.claims.score, ok.kid, ok.keyStatus], [1, 4200, 'k-test', 'current']);

  const [header, payload, signature] = receipt.split('.') as [string, string, string];
  const raised = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), rank: 0 }))
    .toString('base64url');
  await assert.rejects(verifyReceipt(`${header}.${raised}.${signature}`, { keys: [key] }), refusedFor('signature'));
  const other = await signed();
  await assert.rejects(verifyReceipt(receipt, { keys: [{ ...key, x: other.key.x }] }), refusedFor('signature'));
  await assert.rejects(verifyReceipt(other.receipt, { keys: [key] }), refusedFor('signature')); // same kid, other key
  await assert.rejects(verifyReceipt(receipt, { keys: [{ ...key, kid: 'k-other' }] }), refusedFor('unknown_key'));
  await assert.rejects(verifyReceipt('not.a-receipt', { keys: [key] }), refusedFor('malformed'));
  await assert.rejects(verifyReceipt(`${header}.${payload}`, { keys: [key] }), refusedFor('malformed'));
});

test('verifyReceipt: a retired key verifies only what is dated before its retired_at; a revoked one nothing', async () => {
  const { receipt, key } = await signed();
  const retired = (retired_at?: string) => ({ keys: [{ ...key, status: 'retired' as const, retired_at }] });
  assert.equal((await verifyReceipt(receipt, retired('2026-12-02T05:00:00.000Z'))).keyStatus, 'retired');
  await assert.rejects(verifyReceipt(receipt, retired('2026-12-02T04:00:00.000Z')), refusedFor('retired')); // at it
  await assert.rejects(verifyReceipt(receipt, retired('2026-12-01T00:00:00.000Z')), refusedFor('retired'));
  await assert.rejects(verifyReceipt(receipt, retired(undefined)), refusedFor('retired'));
  // `iat` counts too: a receipt whose at is before retired_at but iat after it is refused
  const late = await signed({ iat: Date.parse('2026-12-02T06:00:00.000Z') / 1000 });
  await assert.rejects(verifyReceipt(late.receipt, {
    keys: [{ ...late.key, status: 'retired', retired_at: '2026-12-02T05:00:00.000Z' }],
  }), refusedFor('retired'));
  await assert.rejects(verifyReceipt(receipt, {
    keys: [{ ...key, status: 'revoked', retired_at: '2026-12-03T00:00:00.000Z', revoked_at: '2026-12-03T00:00:00.000Z' }],
  }), refusedFor('revoked'));
});

test('LeaderboardError: "<status> <code>: <the API\'s error>", with status, code, detail and body', () => {
  const err = new LeaderboardError(404, { error: 'no leaderboard race' });
  assert.equal(err.message, '404 not_found: no leaderboard race');
  assert.deepEqual([err.status, err.code, err.detail], [404, 'not_found', 'no leaderboard race']);
  assert.equal(new LeaderboardError(418, null).message, '418 http_418: HTTP 418');
  assert.equal(errorCode(429), 'too_many_requests');
});
