/* A real 429 of the local stack retried after its Retry-After: a board allowing a player one submission a minute,
 * a second submission within the minute. The pytest side starts this file a few seconds before the minute ends on
 * the stack's clock (the limit's window), so the Retry-After it answers is short and the retry lands in the next
 * minute. No fake fetch: the retry is the SDK's, over HTTP. */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { LeaderboardError, type RetryInfo } from '@cdk-leaderboard/client';

import { admin, client, env, unique } from './support.js';

test('a 429 is retried after its Retry-After, and the retried submission lands', async () => {
  const board = unique('ts-limit');
  const created = await admin().api.POST('/leaderboards', {
    body: { board_id: board, order: 'desc', operator: 'best', periods: ['all-time'], max_submissions_per_minute: 1 },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));

  const retries: RetryInfo[] = [];
  const patient = client(env.gameKey, { retry: { maxDelayMs: 15_000, onRetry: (info) => retries.push(info) } });
  const started = Date.now();
  const first = await patient.submitScore(board, { player_id: 'p-limited', score: 10 });
  assert.equal(first.held, false);
  assert.equal(retries.length, 0);

  const second = await patient.submitScore(board, { player_id: 'p-limited', score: 20 });
  assert.equal(second.held, false);
  assert.equal(retries.length, 1, JSON.stringify(retries));
  const [retry] = retries;
  assert.equal(retry?.status, 429);
  assert.ok(retry?.retryAfterMs !== null && retry!.retryAfterMs >= 1000, JSON.stringify(retry));
  assert.equal(retry?.delayMs, retry?.retryAfterMs); // waited what the server said, not a guess
  assert.ok(Date.now() - started >= retry!.retryAfterMs, 'the retry waited out Retry-After');
  const top = await patient.top(board);
  assert.deepEqual(top.entries.map((e) => [e.player_id, e.score]), [['p-limited', 20]]);

  // A client that waits less than the server asks is handed the 429 (with its Retry-After), not retried early.
  const hasty = client(env.gameKey, { retry: { maxDelayMs: 100, onRetry: (info) => retries.push(info) } });
  await assert.rejects(hasty.submitScore(board, { player_id: 'p-limited', score: 30 }), (err: unknown) =>
    err instanceof LeaderboardError && err.status === 429 && (err.retryAfterMs ?? 0) >= 1000);
  assert.equal(retries.length, 1);
});
