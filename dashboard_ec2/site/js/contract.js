/* The limits the API enforces, read from the OpenAPI document it serves (GET /openapi.json), so the page
 * never restates one: the range of players the simulator seeds, the largest page of a ranking, the shape
 * of a player id and how many ids a friends list takes. */

import { api } from './api.js';
import { request } from './request.js';
import * as state from './state.js';

const RETRY_AFTER_MS = 30000;

let loading = null;
let failedAt = -Infinity;

/**
 * Read the document once. Until it has answered the limits are unknown and the API alone judges the
 * input. Read again on a later call when the API could not be reached; when it answered with an error,
 * at most every 30 s.
 */
export function loadLimits() {
  if (state.limits() || loading || Date.now() - failedAt < RETRY_AFTER_MS) return loading;
  loading = request(api.openapi())
    .then(({ data }) => state.setLimits(limitsFrom(data)), (err) => {
      const unreachable = err.status === 0 || err.status >= 502;
      if (!unreachable) failedAt = Date.now();
    })
    .finally(() => {
      loading = null;
    });
  return loading;
}

/**
 * {seedPlayers: {min, max}, pageSize: {min, max}, playerId: {pattern, maxLength}, friendIds: {max}}: numbers
 * (pattern: a RegExp), or undefined where the document says nothing.
 */
function limitsFrom(doc) {
  const players = bodyProperty(doc, 'post', '/simulate', 'players');
  // One page-size choice serves both the default board's route and the other boards' route.
  const pages = [queryParameter(doc, 'get', '/leaderboard', 'limit'), queryParameter(doc, 'get', '/leaderboards/{board}/top', 'limit')];
  const playerId = pathParameter(doc, 'get', '/players/{player_id}/boards', 'player_id');
  const friendIds = queryParameter(doc, 'get', '/leaderboards/{board}/players', 'ids');
  return {
    seedPlayers: { min: players.minimum, max: players.maximum },
    pageSize: { min: largest(pages.map((p) => p.minimum)), max: smallest(pages.map((p) => p.maximum)) },
    playerId: { pattern: regExp(playerId.pattern), maxLength: numbers([playerId.maxLength])[0] },
    friendIds: { max: numbers([friendIds['x-max-ids']])[0] },
  };
}

/** The document's pattern as a RegExp (ECMA 262 syntax, as OpenAPI asks); undefined if it has none or it fails. */
function regExp(pattern) {
  if (typeof pattern !== 'string') return undefined;
  try {
    return new RegExp(pattern);
  } catch (_) {
    return undefined;
  }
}

const numbers = (values) => values.filter((v) => typeof v === 'number');
const smallest = (values) => (numbers(values).length ? Math.min(...numbers(values)) : undefined);
const largest = (values) => (numbers(values).length ? Math.max(...numbers(values)) : undefined);

/** Follow a local "$ref" ("#/components/schemas/X") to what it names. */
function resolve(doc, node) {
  let seen = 0;
  while (node && typeof node.$ref === 'string' && node.$ref.startsWith('#/') && seen++ < 10) {
    node = node.$ref.slice(2).split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((at, part) => (at ? at[part] : undefined), doc);
  }
  return node || {};
}

function operation(doc, method, path) {
  return resolve(doc, doc && doc.paths && doc.paths[path] && doc.paths[path][method]);
}

function bodyProperty(doc, method, path, name) {
  const body = resolve(doc, operation(doc, method, path).requestBody);
  const schema = resolve(doc, body.content && body.content['application/json'] && body.content['application/json'].schema);
  return resolve(doc, schema.properties && schema.properties[name]);
}

function parameter(doc, method, path, where, name) {
  const parameters = (operation(doc, method, path).parameters || []).map((p) => resolve(doc, p));
  const found = parameters.find((p) => p.in === where && p.name === name);
  return resolve(doc, found && found.schema);
}

const queryParameter = (doc, method, path, name) => parameter(doc, method, path, 'query', name);
const pathParameter = (doc, method, path, name) => parameter(doc, method, path, 'path', name);
