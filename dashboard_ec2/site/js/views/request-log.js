/* The request log in the footer: the newest requests first, with status and time, failures marked. */

import { $, h } from '../dom.js';
import { timeFormat } from '../format.js';
import { onRequest } from '../request.js';

const LOG_SIZE = 15;

export function initRequestLog() {
  onRequest((method, url, status, ms) => {
    const body = $('#request-log-body');
    const ok = typeof status === 'number' && status < 400;
    body.prepend(
      h('tr', { class: ok ? '' : 'bad' },
        h('td', null, timeFormat.format(new Date())),
        h('td', null, h('code', null, `${method} ${url}`)),
        h('td', { class: 'num' }, String(status)),
        h('td', { class: 'num' }, String(Math.round(ms)))),
    );
    while (body.rows.length > LOG_SIZE) body.deleteRow(-1);
  });
}
