/* Elements made with `el`: every text goes in as text nodes, never as markup, so a name like
   `<img onerror=...>` shows as the characters it is. The views' shared pieces: labelled fields,
   a status line, code and diffs, problems. */
import { problemsOf } from './http.js';

export const DEBOUNCE_MS = 400; // a form is checked this long after the last keystroke
export const main = document.getElementById('main');

/** An element with attributes, listeners (`onclick`...) and children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'class') node.className = value;
    else if (typeof value === 'boolean') node[name] = value;
    else node.setAttribute(name, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false)
      node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

let fieldIds = 0;
/** A labelled control: `control` is the input, select or textarea element. */
export function field(label, control, help) {
  control.id = control.id || `f${++fieldIds}`;
  return el(
    'div',
    { class: 'field' },
    el('label', { for: control.id }, label),
    control,
    help ? el('small', { class: 'note' }, help) : null,
  );
}

export function checkbox(label, checked, attrs = {}) {
  const box = el('input', { type: 'checkbox', id: `f${++fieldIds}`, checked: Boolean(checked), ...attrs });
  return { box, node: el('div', { class: 'check' }, box, el('label', { for: box.id }, label)) };
}

/** A choice among `options`: [value, text] pairs, or an object of text by value, in its order. */
export function select(options, chosen, attrs = {}) {
  const pairs = Array.isArray(options) ? options : Object.entries(options);
  return el(
    'select',
    attrs,
    pairs.map(([value, text]) => el('option', { value, selected: value === chosen }, text)),
  );
}

export function say(text) {
  const status = document.getElementById('status');
  status.textContent = text;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => {
    status.textContent = '';
  }, 4000);
}

/** The lines of `text`, numbered, with `marked` (1-based) highlighted. */
export function codeView(text, marked = new Set(), label = 'Definition') {
  const lines = (text || '').replace(/\n$/, '').split('\n');
  return el(
    'ol',
    { class: 'code', 'aria-label': label },
    lines.map((line, i) => el('li', { class: marked.has(i + 1) ? 'bad' : null }, line)),
  );
}

export function diffView(text) {
  if (!text) return el('p', { class: 'note' }, 'The definitions are the same.');
  return el(
    'pre',
    { class: 'diff', 'aria-label': 'Definition diff' },
    text
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => {
        const kind = line.startsWith('@@')
          ? 'hunk'
          : line.startsWith('+') && !line.startsWith('+++')
            ? 'add'
            : line.startsWith('-') && !line.startsWith('---')
              ? 'del'
              : null;
        return el('span', { class: kind }, line);
      }),
  );
}

export function problemList(error) {
  return el(
    'ul',
    { class: 'problems error', role: 'alert' },
    problemsOf(error).map(([place, message]) => el('li', {}, place ? `${place}: ${message}` : message)),
  );
}

/** The refusal of a write made as a dry run showed it: a 412 (it changed since) asks for the dry run
    again; anything else, its problems. */
export function refusedAsShown(error) {
  if (error.status !== 412) return problemList(error);
  return el('p', { class: 'error' }, 'It changed since the changes were shown: show them again.');
}

/** Shows the view of the current URL again (app.js routes on every `hashchange`). */
export function refresh() {
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

/** A button that does something on the page (not a form's submit): quiet unless `attrs` says. */
export function button(text, onclick, attrs = {}) {
  return el('button', { type: 'button', class: 'quiet', onclick, ...attrs }, text);
}

/** A link styled as a button. */
export function linkButton(text, href) {
  return el('a', { class: 'button quiet', href }, text);
}

/** A table under a heading row, which scrolls sideways on a narrow window: `rows` are `tr`s;
    `caption` (a node or text) says what it shows, `attrs` go to the table. */
export function table(label, headings, rows, { caption = null, ...attrs } = {}) {
  const head = el(
    'thead',
    {},
    el(
      'tr',
      {},
      headings.map((h) => el('th', { scope: 'col' }, h)),
    ),
  );
  const shown = caption === null ? null : el('caption', { class: 'note' }, caption);
  const body = el('tbody', {}, rows);
  return el('div', { class: 'scroll' }, el('table', { 'aria-label': label, ...attrs }, shown, head, body));
}

/** A row of cells: a `td` or `th` as it is, anything else put in a `td`. */
export function row(...cells) {
  return el(
    'tr',
    {},
    cells.map((cell) => (cell instanceof Node && ['TD', 'TH'].includes(cell.tagName) ? cell : el('td', {}, cell))),
  );
}

/** A blueprint's tags as a list, or nothing where it has none. */
export function tagList(tags) {
  return tags && tags.length
    ? el(
        'ul',
        { class: 'tags', 'aria-label': 'Tags' },
        tags.map((t) => el('li', {}, t)),
      )
    : null;
}
