/* What the suites share: the stack they run against (environment variables set by
 * tests/integration/test_sdk_typescript.py from its local stack), clients with the coverage recorder, and waiting. */

import { appendFileSync } from 'node:fs';

import WebSocket from 'ws';
import type { Middleware } from 'openapi-fetch';

import { createLeaderboardClient, type ClientOptions, type LeaderboardClient } from '@cdk-leaderboard/client';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: tests/integration/test_sdk_typescript.py runs this suite`);
  return value;
}

export const env = {
  apiUrl: required('LEADERBOARD_API_URL'),
  edgeUrl: process.env.LEADERBOARD_EDGE_URL || required('LEADERBOARD_API_URL'),
  gameKey: required('LEADERBOARD_GAME_KEY'),
  adminKey: required('LEADERBOARD_ADMIN_KEY'),
  coverageFile: process.env.LEADERBOARD_SDK_COVERAGE ?? '',
};

/** Each answered call as "METHOD /path/{template} STATUS", one a line: the operations the suite called through the
 * SDK, which the pytest side compares with the document's. */
const recorder: Middleware = {
  onResponse({ request, response, schemaPath }) {
    if (env.coverageFile) appendFileSync(env.coverageFile, `${request.method} ${schemaPath} ${response.status}\n`);
    return undefined;
  },
};

/** A client as a Node 20 user makes one: `ws` as the WebSocket (Node 20 has no global one without a flag). */
export function client(apiKey?: string, options: Partial<ClientOptions> = {}): LeaderboardClient {
  return createLeaderboardClient({
    baseUrl: env.apiUrl,
    apiKey,
    WebSocket,
    middleware: [recorder],
    ...options,
  });
}

export const game = () => client(env.gameKey);
export const admin = () => client(env.adminKey);
export const anonymous = () => client();

/** A name of this run's own: other test files share the stack. */
export function unique(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
