/* The SDK against a running local stack (make run's handlers, DynamoDB Local, the AppSync Events stand-in): the
 * flows a game needs, and every operation of the document at least once (the pytest side checks the coverage). */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';

import { LeaderboardError, ReceiptError, type FollowState, type Jwks, type TopEvent } from '@cdk-leaderboard/client';

import { admin, anonymous, env, game, unique, waitFor } from './support.js';

const gameClient = game();
const adminClient = admin();
const device = anonymous(); // a player's device: no key, tokens only

async function createBoard(body: Record<string, unknown>): Promise<string> {
  const board = unique('ts');
  const { data, error, response } = await adminClient.api.POST('/leaderboards', {
    body: { board_id: board, order: 'desc', operator: 'best', ...body },
  });
  assert.equal(response.status, 201, JSON.stringify(error));
  assert.equal(data?.board_id, board);
  return board;
}

test('the run flow: a player token, a run, the score with the run token, a live update, a receipt', async () => {
  const board = await createBoard({ periods: ['all-time', 'daily'], submissions: 'client', max_open_runs: 2 });
  const player = unique('p');
  const { token, expires_at } = await gameClient.playerToken(player, { boards: [board], ttlSeconds: 600 });
  assert.ok(token && expires_at);

  // Following first: the pushed top must carry the score submitted below.
  const tops: TopEvent[] = [];
  const states: FollowState[] = [];
  const follower = device.follow(board, {
    period: 'all-time', edgeUrl: env.edgeUrl, onTop: (top) => tops.push(top), onState: (s) => states.push(s),
  });
  try {
    await waitFor('the follower to be live', () => (follower.state === 'live' ? true : undefined));
    const run = await device.startRun(board, token);
    assert.equal(run.board, board);
    assert.equal(run.playerId, player);
    assert.ok(run.runId && run.runToken && Number.isInteger(run.seed));

    const result = await device.submitRun(run, { score: 4321, player_name: 'Ada', metadata: { car: 'red' } });
    assert.equal(result.held, false);
    if (result.held) return;
    assert.equal(result.player_id, player);
    assert.deepEqual(result.periods.map((p) => [p.period, p.rank, p.score]).sort(),
      [['all-time', 1, 4321], ['daily', 1, 4321]]);

    const pushed = await waitFor('the new score pushed live', () =>
      tops.find((t) => t.source === 'live' && t.entries.some((e) => e.player_id === player && e.score === 4321)));
    assert.equal(pushed.board, board);
    assert.equal(pushed.period, 'all-time');
    assert.equal(states[0], 'connecting');
    assert.ok(states.includes('live'), JSON.stringify(states));

    // A run takes one score: a second use is refused, as a LeaderboardError with the API's text.
    await assert.rejects(device.submitRun(run, { score: 5000 }), (err: unknown) =>
      err instanceof LeaderboardError && err.status === 403 && /taken its submission/.test(err.message));

    const { receipt } = await device.receipt(board, player, token);
    const [header, payload, signature] = receipt.split('.');
    assert.ok(header && signature);
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    assert.equal(claims.player_id, player);
    assert.equal(claims.score, 4321);
    assert.equal(claims.rank, 1);
    if (process.env.LEADERBOARD_SDK_RECEIPT) writeFileSync(process.env.LEADERBOARD_SDK_RECEIPT, receipt);
    await receiptsVerify(receipt, player);
  } finally {
    follower.close();
  }
  assert.equal(follower.state, 'closed');
});

/** The receipt against the served JWKS: accepted as it is; refused tampered, under another key, and when its key is
 * listed as retired before the receipt's date (the JWKS as served, then changed in those ways). */
async function receiptsVerify(receipt: string, player: string): Promise<void> {
  const jwks = await device.jwks();
  const verified = await device.verifyReceipt(receipt);
  assert.equal(verified.claims.player_id, player);
  assert.equal(verified.claims.rank, 1);
  assert.equal(verified.keyStatus, 'current');
  assert.equal(verified.kid, jwks.keys[0]?.kid);

  const refused = (reason: string) => (err: unknown) => err instanceof ReceiptError && err.reason === reason;
  const [header, payload, signature] = receipt.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const better = Buffer.from(JSON.stringify({ ...claims, rank: 0 })).toString('base64url');
  await assert.rejects(device.verifyReceipt(`${header}.${better}.${signature}`), refused('signature'));
  const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
  await assert.rejects(device.verifyReceipt(`${header}.${payload}.${flipped}`), refused('signature'));

  const key = jwks.keys.find((k) => k.kid === verified.kid)!;
  const other = 'Jd8lU6n3Fq7hWbYv0cS2xJ9rT4kP1mN5eA8gZ3oQ6wI'; // an Ed25519 public key not the stack's
  const withKey = (change: Partial<typeof key>): Jwks => ({ keys: [{ ...key, ...change }] });
  await assert.rejects(device.verifyReceipt(receipt, { jwks: withKey({ x: other }) }), refused('signature'));
  await assert.rejects(device.verifyReceipt(receipt, { jwks: withKey({ kid: 'someone-else' }) }), refused('unknown_key'));
  const before = new Date(Date.parse(claims.at) - 1000).toISOString();
  await assert.rejects(device.verifyReceipt(receipt, { jwks: withKey({ status: 'retired', retired_at: before }) }),
    refused('retired'));
  const after = new Date(Date.parse(claims.at) + 2000).toISOString();
  const old = await device.verifyReceipt(receipt, { jwks: withKey({ status: 'retired', retired_at: after }) });
  assert.equal(old.keyStatus, 'retired');
  await assert.rejects(device.verifyReceipt(receipt, { jwks: withKey({ status: 'revoked', revoked_at: after }) }),
    refused('revoked'));
}

test('ensureBoard creates a board once; rank, around, a player\'s boards; errors carry status and code', async () => {
  const board = unique('ts-ensure');
  const spec = { board_id: board, order: 'desc', operator: 'best', periods: ['all-time'] } as const;
  const created = await adminClient.ensureBoard({ ...spec, periods: [...spec.periods] });
  assert.equal(created.board_id, board);
  const again = await adminClient.ensureBoard({ ...spec, periods: ['all-time'], name: 'ignored: it exists' });
  assert.equal(again.created_at, created.created_at);
  await assert.rejects(adminClient.createBoard({ ...spec, periods: ['all-time'] }), (err: unknown) =>
    err instanceof LeaderboardError && err.status === 409 && err.code === 'conflict'
    && err.message === `409 conflict: ${err.detail}` && /exists/.test(err.detail));
  await assert.rejects(gameClient.createBoard({ ...spec, periods: ['all-time'], board_id: unique('ts-nokey') }),
    (err: unknown) => err instanceof LeaderboardError && err.status === 403 && err.code === 'forbidden');

  const player = unique('p');
  for (const [id, score] of [['p-a', 300], [player, 200], ['p-c', 100], ['p-d', 50]] as const) {
    await gameClient.submitScore(board, { player_id: id, score, player_name: id });
  }
  // totals follow the writes through the table's stream, a moment later
  const rank = await waitFor('the four counted', async () => {
    const standing = await device.rank(board, player);
    return standing.total_players === 4 ? standing : undefined;
  });
  assert.deepEqual([rank.rank, rank.score, rank.total_players, rank.percentile], [2, 200, 4, 50]);
  assert.equal('above' in rank, false);
  const around = await device.around(board, player, { window: 1 });
  assert.deepEqual(around.above.map((e) => e.player_id), ['p-a']);
  assert.deepEqual(around.below.map((e) => e.player_id), ['p-c']);
  const boards = await device.playerBoards(player);
  assert.deepEqual(boards.boards.map((b) => [b.board_id, b.period, b.rank]), [[board, 'all-time', 2]]);

  await assert.rejects(device.rank(unique('ts-none'), player), (err: unknown) =>
    err instanceof LeaderboardError && err.status === 404 && err.code === 'not_found'
    && err.message.startsWith('404 not_found: '));
});

test('a score a quarantine rule holds comes back held, and the admin decides it', async () => {
  const board = await createBoard({
    periods: ['all-time'], submissions: 'client', rules: { max_score: { value: 1000, action: 'quarantine' } },
  });
  const player = unique('p');
  const { token } = await gameClient.playerToken(player);

  const held = await device.submitRun(await device.startRun(board, token), { score: 5000, evidence: { taps: 50 } });
  assert.equal(held.held, true);
  if (!held.held) return;
  assert.equal(held.status, 'pending');
  assert.equal(held.rule, 'max_score');

  // The player sees it with their token; it is on no board.
  const mine = await device.api.GET('/players/{player_id}', {
    params: { path: { player_id: player } }, headers: { Authorization: `Bearer ${token}` },
  });
  assert.deepEqual(mine.data?.pending.map((p) => [p.board_id, p.pending_id]), [[board, held.pending_id]]);
  assert.deepEqual((await device.top(board)).entries, []);

  const queue = await adminClient.api.GET('/leaderboards/{board}/pending', { params: { path: { board } } });
  assert.deepEqual(queue.data?.pending.map((p) => p.pending_id), [held.pending_id]);
  const approved = await adminClient.api.POST('/leaderboards/{board}/pending/{pending_id}/approve', {
    params: { path: { board, pending_id: held.pending_id } },
  });
  assert.equal(approved.data?.status, 'approved');
  assert.deepEqual((await device.top(board)).entries.map((e) => [e.player_id, e.score]), [[player, 5000]]);

  const again = await device.submitRun(await device.startRun(board, token), { score: 9000 });
  assert.equal(again.held, true);
  if (!again.held) return;
  const rejected = await adminClient.api.POST('/leaderboards/{board}/pending/{pending_id}/reject', {
    params: { path: { board, pending_id: again.pending_id } },
  });
  assert.equal(rejected.data?.status, 'rejected');
  assert.deepEqual((await device.top(board)).entries.map((e) => e.score), [5000]);
});

test('entries() pages to the end; the other reads and the moderation routes of a board', async () => {
  const board = await createBoard({ periods: ['all-time', 'weekly'] });
  const players = Array.from({ length: 23 }, (_, i) => `p${String(i).padStart(2, '0')}`);
  const bulk = await gameClient.api.POST('/leaderboards/{board}/scores/bulk', {
    params: { path: { board }, header: { 'Idempotency-Key': unique('bulk') } },
    body: { entries: players.map((player_id, i) => ({ player_id, score: 1000 + i * 10, player_name: player_id })) },
  });
  assert.equal(bulk.data?.accepted, 23, JSON.stringify(bulk.error));
  const one = await gameClient.submitScore(board, { player_id: 'p-extra', score: 5, player_name: 'Extra' });
  assert.equal(one.held, false);

  // Three pages of 10, 10 and 4: every entry once, best first.
  const seen = [];
  for await (const entry of gameClient.entries(board, { limit: 10 })) seen.push(entry);
  assert.equal(seen.length, 24);
  assert.deepEqual(seen.map((e) => e.rank), Array.from({ length: 24 }, (_, i) => i + 1));
  assert.equal(seen[0]?.player_id, 'p22');
  assert.equal(seen.at(-1)?.player_id, 'p-extra');
  const first = await gameClient.top(board, { period: 'weekly', limit: 10 });
  assert.equal(first.entries.length, 10);
  assert.ok(first.next_cursor);

  const range = await device.api.GET('/leaderboards/{board}/range', {
    params: { path: { board }, query: { min_score: 1000, max_score: 1020 } },
  });
  assert.deepEqual(range.data?.entries.map((e) => e.player_id), ['p02', 'p01', 'p00']);
  const around = await device.api.GET('/leaderboards/{board}/players/{player_id}', {
    params: { path: { board, player_id: 'p10' }, query: { window: 1 } },
  });
  assert.equal(around.data?.rank, 13);
  const friends = await device.api.GET('/leaderboards/{board}/players', {
    params: { path: { board }, query: { ids: 'p00,p22,nobody' } },
  });
  assert.deepEqual(friends.data?.entries.map((e) => e.player_id), ['p22', 'p00']);

  const hide = await adminClient.api.PUT('/leaderboards/{board}/players/{player_id}/hidden', {
    params: { path: { board, player_id: 'p22' } },
  });
  assert.equal(hide.response.status, 200, JSON.stringify(hide.error));
  const hidden = await adminClient.api.GET('/leaderboards/{board}/hidden', { params: { path: { board } } });
  assert.deepEqual(hidden.data?.players.map((p) => p.player_id), ['p22']);
  assert.equal((await device.top(board, { limit: 1 })).entries[0]?.player_id, 'p21');
  const unhide = await adminClient.api.DELETE('/leaderboards/{board}/players/{player_id}/hidden', {
    params: { path: { board, player_id: 'p22' } },
  });
  assert.equal(unhide.response.status, 200, JSON.stringify(unhide.error));
  const removed = await adminClient.api.DELETE('/leaderboards/{board}/players/{player_id}', {
    params: { path: { board, player_id: 'p-extra' } },
  });
  assert.equal(removed.response.status, 200, JSON.stringify(removed.error));

  const patched = await adminClient.api.PATCH('/leaderboards/{board}', {
    params: { path: { board } }, body: { submissions: 'client' },
  });
  assert.equal(patched.data?.submissions, 'client', JSON.stringify(patched.error));
  const read = await device.board(board);
  assert.equal(read.board_id, board);
  const listed = await device.api.GET('/leaderboards', { params: { query: { limit: 100 } } });
  assert.equal(listed.response.status, 200);
  const periods = await device.api.GET('/leaderboards/{board}/periods', { params: { path: { board } } });
  const weekly = periods.data?.periods.find((p) => p.kind === 'weekly');
  assert.ok(weekly, JSON.stringify(periods.data));
  const period = await device.api.GET('/leaderboards/{board}/periods/{period_id}', {
    params: { path: { board, period_id: weekly.period_id } },
  });
  assert.equal(period.data?.period_id, weekly.period_id);
  const token = await device.api.GET('/leaderboards/{board}/scores', { params: { path: { board } } });
  assert.ok(token.data?.token);

  const deleted = await adminClient.api.DELETE('/leaderboards/{board}', { params: { path: { board } } });
  assert.ok([200, 202].includes(deleted.response.status), JSON.stringify(deleted.error));
  assert.equal((await device.api.GET('/leaderboards/{board}', { params: { path: { board } } })).response.status, 404);
});

test('a tournament that has ended is closed, its summary and log read', async () => {
  const hour = 3600_000;
  const board = await createBoard({
    starts_at: new Date(Date.now() - 2 * hour).toISOString(), ends_at: new Date(Date.now() - hour).toISOString(),
  });
  const periods = await device.api.GET('/leaderboards/{board}/periods', { params: { path: { board } } });
  const periodId = periods.data?.periods[0]?.period_id;
  assert.ok(periodId, JSON.stringify(periods.data));
  const closed = await adminClient.api.POST('/leaderboards/{board}/periods/{period_id}/close', {
    params: { path: { board, period_id: periodId } },
  });
  assert.equal(closed.response.status, 200, JSON.stringify(closed.error));
  const log = await device.api.GET('/leaderboards/{board}/periods/{period_id}/log', {
    params: { path: { board, period_id: periodId } },
  });
  assert.equal(log.response.status, 200, JSON.stringify(log.error));
});

test('the default board, snapshots, the simulator, a player across boards and an erasure', async () => {
  const player = unique('p');
  const submitted = await gameClient.api.POST('/scores', { body: { player_id: player, score: 77, player_name: 'Bo' } });
  assert.equal(submitted.data?.player_id, player, JSON.stringify(submitted.error));
  assert.equal((await device.api.GET('/leaderboard', { params: { query: { limit: 5 } } })).response.status, 200);
  const stats = await device.api.GET('/player', { params: { query: { player_id: player } } });
  assert.equal(stats.data?.player_id, player);
  const boards = await device.api.GET('/players/{player_id}/boards', { params: { path: { player_id: player } } });
  assert.equal(boards.response.status, 200, JSON.stringify(boards.error));

  const snapshot = await adminClient.api.POST('/snapshot', { body: { limit: 5 } });
  assert.equal(snapshot.response.status, 201, JSON.stringify(snapshot.error));
  const snapshots = await device.api.GET('/snapshots', { params: { query: { limit: 1 } } });
  assert.equal(snapshots.data?.snapshots[0]?.snapshot_id, snapshot.data?.snapshot_id);
  const simulated = await adminClient.api.POST('/simulate', { body: { players: 2 } });
  assert.equal(simulated.data?.players, 2, JSON.stringify(simulated.error));

  const erased = await adminClient.api.DELETE('/players/{player_id}', { params: { path: { player_id: player } } });
  assert.ok([200, 202].includes(erased.response.status), JSON.stringify(erased.error));
  const erasureId = erased.data?.erasure_id;
  assert.ok(erasureId);
  const status = await device.api.GET('/erasures/{erasure_id}', { params: { path: { erasure_id: erasureId } } });
  assert.equal(status.data?.erasure_id, erasureId, JSON.stringify(status.error));
});

test('the document and the signing keys', async () => {
  const doc = await device.api.GET('/openapi.json');
  assert.equal(doc.response.status, 200);
  const jwks = await device.api.GET('/.well-known/jwks.json');
  assert.ok((jwks.data?.keys.length ?? 0) > 0);
});

test('a client with the game key sends only the token on the token routes (both at once is a 400)', async () => {
  const board = await createBoard({ periods: ['all-time'], submissions: 'client' });
  const player = unique('p');
  const { token } = await gameClient.playerToken(player);
  const run = await gameClient.startRun(board, token);
  const result = await gameClient.submitRun(run, { score: 12 });
  assert.equal(result.held, false);
  const { receipt } = await gameClient.receipt(board, player, token);
  assert.equal(receipt.split('.').length, 3);
});
