/* How numbers, times and durations read on the page. */

const numberFormat = new Intl.NumberFormat('en-US');
export const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
export const tickFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
});
export const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit',
});
// Periods are UTC days, ISO weeks and months: their resets are shown in UTC.
export const utcFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
});

/** 12,345 for a number; anything else as text, "–" for nothing. */
export const fmt = (n) => (typeof n === 'number' ? numberFormat.format(n) : String(n ?? '–'));
export const fmtMs = (ms) => `${Math.round(ms)} ms`;
/** "1 player", "3 players". */
export const plural = (n, word) => `${word}${n === 1 ? '' : 's'}`;

/** A Date from an ISO time (a "#suffix" after it is ignored), seconds or milliseconds; null if none. */
export function parseTime(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return new Date(value < 1e12 ? value * 1000 : value);
  const t = Date.parse(String(value).split('#')[0]);
  return Number.isNaN(t) ? null : new Date(t);
}

/** "2 d 3 h", "4 h 5 min", "12 min", "less than a minute". */
export function fmtDuration(ms) {
  const minutes = Math.floor(ms / 60000);
  const d = Math.floor(minutes / 1440);
  const hrs = Math.floor((minutes % 1440) / 60);
  const min = minutes % 60;
  if (d > 0) return `${d} d ${hrs} h`;
  if (hrs > 0) return `${hrs} h ${min} min`;
  if (min > 0) return `${min} min`;
  return 'less than a minute';
}

/** A live countdown to the second: "2 d 3 h 4 min", "1 h 02 min 05 s", "4 min 05 s", "7 s". */
export function fmtCountdown(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(total / 86400);
  const hrs = Math.floor((total % 86400) / 3600);
  const min = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  const two = (n) => String(n).padStart(2, '0');
  if (d > 0) return `${d} d ${hrs} h ${min} min`;
  if (hrs > 0) return `${hrs} h ${two(min)} min ${two(sec)} s`;
  if (min > 0) return `${min} min ${two(sec)} s`;
  return `${sec} s`;
}

/** Short axis labels: 1.25M, 98.3k. */
export function compact(n) {
  const abs = Math.abs(n);
  if (abs >= 1e12) return `${+(n / 1e12).toFixed(2)}T`;
  if (abs >= 1e9) return `${+(n / 1e9).toFixed(2)}B`;
  if (abs >= 1e6) return `${+(n / 1e6).toFixed(2)}M`;
  if (abs >= 1e4) return `${+(n / 1e3).toFixed(1)}k`;
  return fmt(Math.round(n));
}
