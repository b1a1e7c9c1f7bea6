import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLeaderboardClient } from '@cdk-leaderboard/client';

test('imports', () => {
  assert.equal(typeof createLeaderboardClient, 'function');
});
