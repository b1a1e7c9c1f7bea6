/* Following a board when the live connection is not there: a connection that drops is made again (a new token, a
 * new socket) and pushes arrive on it; a client with no WebSocket polls the top instead. Both against the stack's
 * AppSync Events stand-in and API, nothing faked: the drop is the socket's own terminate(). */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import WebSocket from 'ws';

import type { Fallback, FollowState, TopEvent } from '@cdk-leaderboard/client';

import { admin, client, env, game, unique, waitFor } from './support.js';

async function board(): Promise<string> {
  const id = unique('ts-live');
  const { response, error } = await admin().api.POST('/leaderboards', {
    body: { board_id: id, order: 'desc', operator: 'best', periods: ['all-time'] },
  });
  assert.equal(response.status, 201, JSON.stringify(error));
  return id;
}

test('a dropped connection is made again, and pushes arrive on the new one', async () => {
  const id = await board();
  const sockets: WebSocket[] = [];
  class Recorded extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      sockets.push(this);
    }
  }
  const tops: TopEvent[] = [];
  const states: FollowState[] = [];
  const follower = client(undefined, { WebSocket: Recorded }).follow(id, {
    period: 'all-time', pollMs: 250, onTop: (t) => tops.push(t), onState: (s) => states.push(s),
  });
  try {
    await waitFor('live', () => (follower.state === 'live' ? true : undefined));
    const before = states.length;
    const dropped = sockets.length;
    sockets.at(-1)!.terminate(); // the connection is gone, as after a network failure
    await waitFor('polling after the drop', () => (states.length > before ? true : undefined));
    await waitFor('live again on a new connection', () => (follower.state === 'live' ? true : undefined));
    assert.equal(states[before], 'polling');
    assert.equal(states.at(-1), 'live');
    assert.ok(sockets.length > dropped, 'a new socket');

    await game().submitScore(id, { player_id: 'p-after', score: 99 });
    await waitFor('the push on the new connection', () =>
      tops.find((t) => t.source === 'live' && t.entries.some((e) => e.player_id === 'p-after')));
  } finally {
    follower.close();
  }
});

test("on Node 20 with no WebSocket passed, follow() goes live on the installed `ws` package", async () => {
  assert.equal(typeof (globalThis as { WebSocket?: unknown }).WebSocket, 'undefined', 'Node 20, no flag');
  const id = await board();
  const tops: TopEvent[] = [];
  const states: FollowState[] = [];
  const fallbacks: Fallback[] = [];
  const follower = client(undefined, { WebSocket: undefined }).follow(id, {
    period: 'all-time', onTop: (t) => tops.push(t), onState: (s) => states.push(s), onFallback: (f) => fallbacks.push(f),
  });
  try {
    await waitFor('live', () => (follower.state === 'live' ? true : undefined));
    await game().submitScore(id, { player_id: 'p-ws', score: 5 });
    await waitFor('the push over the WebSocket', () =>
      tops.find((t) => t.source === 'live' && t.entries.some((e) => e.player_id === 'p-ws')));
    assert.deepEqual(states, ['connecting', 'live']);
    assert.deepEqual(fallbacks, []);
    assert.equal(follower.fallback, null);
  } finally {
    follower.close();
  }
});

test('with no WebSocket the follower polls the top (the edge when given), says why, and sees new scores', async () => {
  const id = await board();
  const tops: TopEvent[] = [];
  const states: FollowState[] = [];
  const fallbacks: Fallback[] = [];
  const follower = client(undefined, { WebSocket: null }).follow(id, {
    period: 'all-time', pollMs: 200, edgeUrl: env.edgeUrl, onTop: (t) => tops.push(t), onState: (s) => states.push(s),
    onFallback: (f) => fallbacks.push(f),
  });
  try {
    await waitFor('a first poll', () => (tops.length > 0 ? true : undefined));
    await waitFor('the fallback reported', () => (fallbacks.length > 0 ? true : undefined));
    assert.deepEqual(fallbacks.map((f) => [f.reason, f.final]), [['no-websocket', true]]);
    assert.match(fallbacks[0]!.message, /npm install ws/);
    assert.equal(follower.fallback?.reason, 'no-websocket');
    assert.deepEqual(tops[0]?.entries, []);
    await game().submitScore(id, { player_id: 'p-polled', score: 7 });
    const polled = await waitFor('the new score polled', () =>
      tops.find((t) => t.entries.some((e) => e.player_id === 'p-polled')));
    assert.equal(polled.source, 'poll');
    assert.deepEqual(states, ['connecting', 'polling']);
  } finally {
    follower.close();
  }
  const seen = tops.length;
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(tops.length, seen, 'no poll after close()');
});

test('the browser bundle runs the same flows (imported as a page would, no bundler)', async () => {
  const url = new URL('../dist/browser/leaderboard-client.js', import.meta.url).href;
  const bundle = await import(url);
  const lb = bundle.createLeaderboardClient({ baseUrl: env.apiUrl, apiKey: env.gameKey });
  const id = await board();
  const result = await lb.submitScore(id, { player_id: 'p-bundle', score: 3 });
  assert.equal(result.held, false);
  assert.deepEqual((await lb.top(id)).entries.map((e: { player_id: string }) => e.player_id), ['p-bundle']);
});
