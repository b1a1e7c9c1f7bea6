/* The trend chart of the snapshots: an SVG line chart of the newest snapshot's top players across
 * snapshots, oldest to newest, by score or by rank. Drawn in the element's own pixel size, so labels stay
 * legible on a phone; a marker shape per series, so colour is not the only cue; title and desc for screen
 * readers. */

import { h, s } from '../dom.js';
import { compact, dateTimeFormat, fmt, parseTime, plural, tickFormat } from '../format.js';

const SERIES = 5; // players drawn

/** snapshots: oldest first; mode: "score" or "rank". */
export function drawChart(svg, legend, snapshots, mode) {
  svg.closest('figure').hidden = snapshots.length === 0; // the status line says why
  const W = Math.round(Math.max(300, Math.min(900, svg.getBoundingClientRect().width || 720)));
  const H = W < 520 ? 240 : 300;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  const pad = { top: 18, right: 16, bottom: 46, left: mode === 'score' ? 62 : 46 };
  const plotW = W - pad.left - pad.right;
  const plotH = H - pad.top - pad.bottom;
  svg.replaceChildren();
  legend.replaceChildren();
  const title = s('title', { id: 'history-chart-title' });
  const desc = s('desc', { id: 'history-chart-desc' });
  svg.append(title, desc);
  svg.dataset.points = '0';
  svg.dataset.snapshots = String(snapshots.length);

  if (snapshots.length === 0) {
    title.textContent = 'No snapshots yet';
    desc.textContent = 'The chart appears after the first snapshot of this board.';
    svg.append(s('text', { x: W / 2, y: H / 2, class: 'chart-empty', 'text-anchor': 'middle' }, 'No snapshots yet'));
    return;
  }

  const newest = snapshots[snapshots.length - 1];
  const players = (newest.entries || []).slice(0, SERIES).map((e) => ({ id: e.player_id, name: e.player_name || e.player_id }));
  const series = players.map((p) => ({
    ...p,
    points: snapshots.map((snap, i) => {
      const entry = (snap.entries || []).find((e) => e.player_id === p.id);
      return entry ? { i, value: mode === 'score' ? entry.score : entry.rank, entry, snap } : null;
    }),
  }));
  const values = series.flatMap((sr) => sr.points.filter(Boolean).map((pt) => pt.value));
  if (values.length === 0) {
    title.textContent = 'No players in the snapshots';
    svg.append(s('text', { x: W / 2, y: H / 2, class: 'chart-empty', 'text-anchor': 'middle' }, 'The snapshots are empty'));
    return;
  }

  let lo;
  let hi;
  if (mode === 'score') {
    lo = Math.min(...values);
    hi = Math.max(...values);
    if (lo === hi) { lo = Math.max(0, lo - 1); hi += 1; }
    const span = hi - lo;
    lo = Math.max(0, lo - span * 0.08);
    hi += span * 0.08;
  } else {
    lo = 1;
    hi = Math.max(2, ...values);
  }
  const x = (i) => pad.left + (snapshots.length === 1 ? plotW / 2 : (i / (snapshots.length - 1)) * plotW);
  const y = mode === 'score'
    ? (v) => pad.top + plotH - ((v - lo) / (hi - lo)) * plotH
    : (v) => pad.top + ((v - lo) / (hi - lo)) * plotH; // rank 1 at the top

  // grid and y axis
  const ticks = mode === 'score' ? niceTicks(lo, hi, 5) : rankTicks(hi);
  const grid = s('g', { class: 'grid' });
  for (const t of ticks) {
    grid.append(s('line', { x1: pad.left, x2: W - pad.right, y1: y(t), y2: y(t) }));
    grid.append(s('text', { x: pad.left - 8, y: y(t) + 4, 'text-anchor': 'end', class: 'tick' }, mode === 'score' ? compact(t) : `#${t}`));
  }
  svg.append(grid);
  svg.append(s('text', { x: 14, y: pad.top + plotH / 2, class: 'axis-title', transform: `rotate(-90 14 ${pad.top + plotH / 2})`, 'text-anchor': 'middle' },
    mode === 'score' ? 'Score' : 'Rank'));

  // x axis: snapshot times, thinned to fit
  const xAxis = s('g', { class: 'x-axis' });
  const last = snapshots.length - 1;
  const every = Math.ceil(snapshots.length / Math.max(2, Math.floor(plotW / 80)));
  snapshots.forEach((snap, i) => {
    // every n-th label, the newest always, and none crowding the newest
    if (i !== last && (i % every !== 0 || last - i < every)) return;
    const t = parseTime(snap.taken_at);
    const anchor = snapshots.length === 1 ? 'middle' : i === 0 ? 'start' : i === last ? 'end' : 'middle';
    xAxis.append(s('text', { x: x(i), y: H - pad.bottom + 18, 'text-anchor': anchor, class: 'tick' }, t ? tickFormat.format(t) : `#${i + 1}`));
  });
  xAxis.append(s('line', { x1: pad.left, x2: W - pad.right, y1: pad.top + plotH, y2: pad.top + plotH, class: 'axis' }));
  xAxis.append(s('text', { x: pad.left + plotW / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-title' }, 'Snapshot taken (oldest → newest)'));
  svg.append(xAxis);

  // one line per player
  let pointCount = 0;
  series.forEach((sr, k) => {
    const g = s('g', { class: `series series-${k}`, 'data-testid': 'chart-series', dataset: { player: sr.id } });
    let path = '';
    let pen = false;
    for (const pt of sr.points) {
      if (!pt) { pen = false; continue; }
      path += `${pen ? 'L' : 'M'}${x(pt.i).toFixed(1)},${y(pt.value).toFixed(1)}`;
      pen = true;
    }
    g.append(s('path', { d: path, class: 'line' }));
    for (const pt of sr.points) {
      if (!pt) continue;
      const t = parseTime(pt.snap.taken_at);
      const label = `${sr.name}: ${mode === 'score' ? fmt(pt.entry.score) : `rank #${pt.entry.rank}`}${t ? ` at ${dateTimeFormat.format(t)}` : ''}`;
      const marker = markerShape(k, x(pt.i), y(pt.value));
      marker.append(s('title', null, label));
      g.append(marker);
      pointCount += 1;
    }
    svg.append(g);
    legend.append(h('li', { class: `series-${k}`, 'data-testid': 'legend-item' },
      h('span', { class: 'swatch', 'aria-hidden': 'true' }), sr.name));
  });
  svg.dataset.points = String(pointCount);
  title.textContent = `${mode === 'score' ? 'Scores' : 'Ranks'} of the top ${series.length} players across ${snapshots.length} ${plural(snapshots.length, 'snapshot')}`;
  desc.textContent = series.map((sr) => {
    const pts = sr.points.filter(Boolean);
    const first = pts[0];
    const latest = pts[pts.length - 1];
    return mode === 'score'
      ? `${sr.name}: ${fmt(first.entry.score)} to ${fmt(latest.entry.score)}`
      : `${sr.name}: rank ${first.entry.rank} to ${latest.entry.rank}`;
  }).join('; ');
}

function markerShape(k, cx, cy) {
  const r = 4.5;
  switch (k % 5) {
    case 1: return s('rect', { x: cx - r, y: cy - r, width: r * 2, height: r * 2, class: 'marker' });
    case 2: return s('path', { d: `M${cx},${cy - r - 1}L${cx + r + 1},${cy + r}L${cx - r - 1},${cy + r}Z`, class: 'marker' });
    case 3: return s('path', { d: `M${cx},${cy - r - 1}L${cx + r + 1},${cy}L${cx},${cy + r + 1}L${cx - r - 1},${cy}Z`, class: 'marker' });
    case 4: return s('path', { d: `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx - r},${cy + r}L${cx + r},${cy - r}`, class: 'marker cross' });
    default: return s('circle', { cx, cy, r, class: 'marker' });
  }
}

function niceTicks(lo, hi, count) {
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw) || raw;
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(Math.round(t * 1e6) / 1e6);
  return out;
}

function rankTicks(maxRank) {
  const step = Math.max(1, Math.ceil(maxRank / 6));
  const out = [1];
  for (let r = 1 + step; r <= maxRank; r += step) out.push(r);
  return out;
}
