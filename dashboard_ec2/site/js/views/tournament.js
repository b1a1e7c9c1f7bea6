/* A tournament board's window in the board's header: a live countdown to its start (not started yet), to its
 * end (running), or when it ended. The times come from the board as the API describes it (starts_at, ends_at);
 * the closing that follows the end shows in the periods section. */

import { h } from '../dom.js';
import { fmtCountdown, utcFormat } from '../format.js';

const at = (date) => h('time', { datetime: date.toISOString() }, utcFormat.format(date), ' UTC');
const dot = () => h('span', { class: 'muted' }, ' · ');

/** "upcoming", "running" or "ended" at `now` (ms). */
export function tournamentState({ startsAt, endsAt }, now = Date.now()) {
  if (now < startsAt.getTime()) return 'upcoming';
  return now < endsAt.getTime() ? 'running' : 'ended';
}

/** The countdown line for the tournament {startsAt, endsAt}, as of now. */
export function tournamentCountdown(tournament, now = Date.now()) {
  const { startsAt, endsAt } = tournament;
  const phase = tournamentState(tournament, now);
  const parts = {
    upcoming: [`Tournament starts in ${fmtCountdown(startsAt.getTime() - now)}`, dot(), at(startsAt)],
    running: [`Tournament ends in ${fmtCountdown(endsAt.getTime() - now)}`, dot(), at(endsAt)],
    ended: ['Tournament ended', dot(), at(endsAt)],
  }[phase];
  return h('span', {
    class: ['countdown', phase], 'data-testid': 'tournament-countdown', dataset: { state: phase },
  }, ...parts);
}
