/* Small DOM helpers. Text always goes in as text, never as HTML (the CSP forbids inline script anyway). */

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

export const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');

/**
 * Whether the focus is still where it was (`before`, taken when a wait began) or nowhere: a late answer may move it
 * then, but not once the user has put it somewhere else meanwhile (typing another ID, say).
 */
export const focusUnmoved = (before) => document.activeElement === before || document.activeElement === document.body;

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An HTML element with attributes and children. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  appendAll(el, children);
  return el;
}

/** An SVG element with attributes and children. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  appendAll(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key === 'class') el.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'text') el.textContent = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
}

function appendAll(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A status line (a polite live region in the markup): its kind drives the styling, the tests read it too. */
export function setStatus(el, kind, message, ...extra) {
  el.dataset.kind = kind || '';
  el.replaceChildren();
  if (message) appendAll(el, [h('span', { class: 'status-text' }, message), ...extra]);
}
