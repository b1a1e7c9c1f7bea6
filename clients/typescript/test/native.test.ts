/* Node's own WebSocket (undici's: global in Node 22, behind --experimental-websocket in Node 20, as the pytest
 * side runs this file): follow() finds it on globalThis when no WebSocket is passed, and goes live with it. */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { TopEvent } from '@cdk-leaderboard/client';

import { admin, client, game, unique, waitFor } from './support.js';

test("follow() goes live on the platform's global WebSocket", async () => {
  assert.equal(typeof globalThis.WebSocket, 'function', 'run with --experimental-websocket on Node 20');
  const board = unique('ts-native');
  const created = await admin().api.POST('/leaderboards', {
    body: { board_id: board, order: 'desc', operator: 'best', periods: ['all-time'] },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  const tops: TopEvent[] = [];
  const follower = client(undefined, { WebSocket: undefined }).follow(board, {
    period: 'all-time', onTop: (t) => tops.push(t),
  });
  try {
    await waitFor('live', () => (follower.state === 'live' ? true : undefined));
    await game().submitScore(board, { player_id: 'p-native', score: 11 });
    await waitFor('the push', () =>
      tops.find((t) => t.source === 'live' && t.entries.some((e) => e.player_id === 'p-native')));
  } finally {
    follower.close();
  }
});
