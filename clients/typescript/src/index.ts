/* @cdk-leaderboard/client: the cdk-leaderboard API from a browser or Node 20 (README.md beside package.json). */

export {
  createLeaderboardClient,
  newIdempotencyKey,
  tokenSubject,
  type ApiClient,
  type Board,
  type BoardSubmit,
  type ClientOptions,
  type Entry,
  type LeaderboardClient,
  type Page,
  type PageOptions,
  type PendingScore,
  type PlayerToken,
  type Receipt,
  type Run,
  type Schemas,
  type Submission,
  type SubmitResult,
} from './client.js';
export { LeaderboardError } from './errors.js';
export {
  base64url,
  type FollowOptions,
  type FollowState,
  type Follower,
  type TopEvent,
  type WebSocketConstructor,
  type WebSocketLike,
} from './live.js';
export { isRetriable, retryAfterMs, retryingFetch, type RetryInfo, type RetryOptions } from './retry.js';
export type { components, operations, paths } from './generated/openapi.js';
