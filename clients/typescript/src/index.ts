/* @cdk-leaderboard/client: the cdk-leaderboard API from a browser or Node 20 (README.md beside package.json). */

export {
  createLeaderboardClient,
  newIdempotencyKey,
  tokenSubject,
  type ApiClient,
  type Around,
  type Board,
  type BoardSpec,
  type BoardSubmit,
  type ClientOptions,
  type Entry,
  type LeaderboardClient,
  type Page,
  type PageOptions,
  type PendingScore,
  type PlayerBoards,
  type PlayerToken,
  type Receipt,
  type ReceiptOptions,
  type Run,
  type Schemas,
  type Standing,
  type Submission,
  type SubmitResult,
} from './client.js';
export { errorCode, LeaderboardError, ReceiptError } from './errors.js';
export {
  base64url,
  type Fallback,
  type FallbackReason,
  type FollowOptions,
  type FollowState,
  type Follower,
  type TopEvent,
  type WebSocketConstructor,
  type WebSocketLike,
} from './live.js';
export { verifyReceipt, type Jwks, type JwksKey, type ReceiptClaims, type VerifiedReceipt } from './receipts.js';
export { isRetriable, retryAfterMs, retryingFetch, type RetryInfo, type RetryOptions } from './retry.js';
export type { components, operations, paths } from './generated/openapi.js';
