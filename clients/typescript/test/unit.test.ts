/* The SDK's pure parts, with no stack: Retry-After parsing, which requests may be sent twice, the subprotocol's
 * encoding, reading a token's subject, and the browser bundle's self-containment. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { base64url, isRetriable, retryAfterMs, tokenSubject } from '@cdk-leaderboard/client';

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
