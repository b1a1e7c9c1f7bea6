// Click rush: the sample game of a client-submission board, on the TypeScript SDK's browser bundle (no bundler).
//
// One play is one run: the player's token (from the game's own server, which holds the game key) starts a run,
// the score goes up with the run's token, and the live top 10 beside the game follows the board over AppSync
// Events (polling the edge when the live endpoint is not reachable). After the run: the rank and a signed receipt,
// verified in this browser against the API's published keys (the SDK's verifyReceipt: jose, WebCrypto's Ed25519).

import { createLeaderboardClient } from '/sdk/leaderboard-client.js';

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
const STATE_TEXT = {
  connecting: 'Connecting…',
  live: 'Live updates (AppSync Events)',
  polling: 'Live updates unavailable: polling the edge',
  closed: 'Not following',
};
const RECEIPT_WAIT_MS = 30_000;

const config = await (await fetch('/config.json')).json();
const lb = createLeaderboardClient({ baseUrl: config.api, retry: { attempts: 3 } });
const me = loadPlayer();
let token = null; // {token, expires_at} from the game's server
let playing = false;

$('round-seconds').textContent = String(config.round_seconds);
$('time-left').textContent = config.round_seconds.toFixed(1);
$('player-name').value = me.name;
$('start').disabled = false;
setStatus('Ready: press Start.');

lb.follow(config.board, {
  period: config.period,
  edgeUrl: config.edge,
  pollMs: 3000,
  onTop: (event) => renderTop(event.entries ?? [], event.source),
  onState: (state) => {
    const badge = $('live-state');
    badge.dataset.state = state;
    badge.textContent = STATE_TEXT[state] ?? state;
  },
});

$('player-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (!playing) play().catch((err) => finish(`Something went wrong: ${problem(err)}`));
});

/** The player's id (random, kept in this browser) and name. */
function loadPlayer() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem('web-game-player') ?? '{}');
  } catch {
    // a damaged entry: start afresh
  }
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const id = saved.id ?? `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  const name = saved.name ?? `Player ${id.slice(-4)}`;
  localStorage.setItem('web-game-player', JSON.stringify({ id, name }));
  return { id, name };
}

/** The player token, minted by the game's server (it holds the game key), reused until a minute before expiry. */
async function playerToken() {
  if (token && Date.parse(token.expires_at) - Date.now() > 60_000) return token.token;
  const reply = await fetch('/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ player_id: me.id }),
  });
  const body = await reply.json();
  if (!reply.ok) throw new Error(body.error ?? `the game's server answered ${reply.status}`);
  token = body;
  return token.token;
}

async function play() {
  playing = true;
  me.name = $('player-name').value.trim() || me.name;
  localStorage.setItem('web-game-player', JSON.stringify(me));
  $('start').disabled = true;
  $('result').hidden = true;
  setStatus('Starting a run…');
  const run = await lb.startRun(config.board, await playerToken());
  const score = await round(run.seed ?? 0);
  setStatus(`Time! Submitting ${score}…`);
  const result = await lb.submitRun(run, { score, player_name: me.name });
  $('result').hidden = false;
  if (result.held) {
    $('outcome').textContent =
      `Your score of ${score} is held for review (rule ${result.rule ?? '?'}): ` +
      'it shows on the board once a moderator approves it.';
    $('rank').textContent = 'pending review';
    $('receipt-facts').textContent = 'No receipt for a held score.';
    return finish('Held for review.', 'held');
  }
  const entry = (result.periods ?? []).find((p) => p.period === config.period);
  $('outcome').textContent = entry?.changed === false
    ? `Score ${score} accepted; your best stays ${entry.score}.`
    : `Score ${score} accepted.`;
  $('rank').textContent = entry?.rank ? `#${entry.rank}` : '–';
  finish('Score accepted.', 'accepted');
  await showReceipt();
}

/** One round of the game: the target jumps (positions from the run's seed, replayable) on every hit. */
function round(seed) {
  const random = mulberry32(Number(BigInt(seed) % 4294967296n));
  const target = $('target');
  const arena = $('arena');
  let hits = 0;
  const move = () => {
    target.style.left = `${Math.floor(random() * 85)}%`;
    target.style.top = `${Math.floor(random() * 80)}%`;
  };
  const hit = () => {
    hits += 1;
    $('score').textContent = String(hits);
    move();
  };
  $('score').textContent = '0';
  move();
  target.hidden = false;
  target.addEventListener('click', hit);
  arena.dataset.playing = 'true';
  setStatus('Go!');
  const ends = performance.now() + config.round_seconds * 1000;
  return new Promise((resolve) => {
    const tick = setInterval(() => {
      $('time-left').textContent = Math.max(0, (ends - performance.now()) / 1000).toFixed(1);
    }, 100);
    setTimeout(() => {
      clearInterval(tick);
      target.removeEventListener('click', hit);
      target.hidden = true;
      arena.dataset.playing = 'false';
      $('time-left').textContent = '0.0';
      resolve(hits);
    }, config.round_seconds * 1000);
  });
}

/** The player's signed receipt (the log appends from the table's stream: the SDK waits out its 409s), then its
 * signature checked here against the API's JWKS. */
async function showReceipt() {
  let jws;
  try {
    ({ receipt: jws } = await lb.receipt(config.board, me.id, await playerToken(), { maxWaitMs: RECEIPT_WAIT_MS }));
  } catch (err) {
    $('receipt-facts').textContent = `No receipt: ${problem(err)}`;
    return;
  }
  const claims = JSON.parse(base64urlDecode(jws.split('.')[1]));
  $('receipt').textContent = jws;
  $('receipt-facts').textContent =
    `Signed: rank ${claims.rank} of ${claims.total_players} with ${claims.score} on ${claims.board_id} ` +
    `(${claims.period_id}), as of log record ${claims.seq}.`;
  $('rank').textContent = `#${claims.rank} of ${claims.total_players}`;
  const download = $('receipt-download');
  if (download.href) URL.revokeObjectURL(download.href);
  download.href = URL.createObjectURL(new Blob([jws], { type: 'application/jose' }));
  $('verify-command').textContent = `python -m leaderboard_verify --url ${config.api} --receipt receipt.jws`;
  $('verify-hint').hidden = false;
  const verdict = $('receipt-verified');
  try {
    const { kid, keyStatus } = await lb.verifyReceipt(jws);
    verdict.dataset.verified = 'true';
    verdict.textContent = `verified: signed by key ${kid} (${keyStatus}), checked in this browser against the API's keys`;
  } catch (err) {
    verdict.dataset.verified = 'false';
    verdict.textContent = `not verified: ${problem(err)}`;
  }
  verdict.hidden = false;
}

/** The top 10 on screen; `source` (live: a push, poll: a read) is kept on the list for whoever looks. */
function renderTop(entries, source) {
  const list = $('top-list');
  list.dataset.source = source ?? '';
  const rows = entries.slice(0, 10).map((entry) => {
    const row = document.createElement('li');
    row.dataset.testid = 'top-row';
    row.dataset.player = entry.player_id;
    if (entry.player_id === me.id) row.classList.add('me');
    for (const [field, text] of [
      ['row-rank', `#${entry.rank}`],
      ['row-name', entry.player_name || entry.player_id],
      ['row-score', String(entry.score)],
    ]) {
      const cell = document.createElement('span');
      cell.dataset.testid = field;
      cell.textContent = text; // names are the players' own text: never markup
      row.append(cell);
    }
    return row;
  });
  list.replaceChildren(...rows);
  $('top-empty').hidden = rows.length > 0;
}

function finish(message, outcome = 'error') {
  playing = false;
  $('start').disabled = false;
  $('status').dataset.outcome = outcome;
  setStatus(message);
}

function setStatus(text) {
  $('status').textContent = text;
}

/** One line for an SDK or network error: the SDK's message says the status, its code and the API's own text. */
function problem(err) {
  return err?.message ?? String(err);
}

function base64urlDecode(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=');
  return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
}

/** A small seeded PRNG (mulberry32): the same seed, the same target positions. */
function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
