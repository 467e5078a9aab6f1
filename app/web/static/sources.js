/* Sources (`#/sources`): catalogs followed from git, each with its last sync; one followed, synced
   now (its progress shown, then its report), or let go. */
import { api, everything, followed, formats } from './api.js';
import { button, el, field, problemList, refresh, select } from './dom.js';
import { progressOf } from './http.js';
import { may } from './session.js';
import { when } from './units.js';
import { importReport } from './import.js';

/** A source's last sync in words: when, at which commit, what it did (or why it failed). */
function lastSync(source) {
  const last = source.lastSync;
  if (!last) return 'Never synced';
  if (last.state === 'running') return `Syncing since ${when(last.at)}`;
  if (last.state === 'failed') return `Failed ${when(last.at)}: ${last.error}`;
  const counts = Object.entries(last.counts)
    .filter(([, n]) => n)
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(', ');
  return `${when(last.at)} at ${last.commit.slice(0, 12)}: ${counts || 'nothing'}`;
}

const ABOUT =
  'Catalogs followed from git: each sync imports what changed since the last, as a new revision; what you changed ' +
  'here is kept and shown as a conflict.';

/** Sync `source` now: its progress under its row, then the report, and its last sync said anew. */
async function syncNow(source, out, status, force = false) {
  const progress = el('p', { class: 'note', role: 'status' }, 'Fetching…');
  out.replaceChildren(progress);
  try {
    const { data: started } = await api('POST', `/sources/${source.id}/sync`, { body: { force } });
    const job = await followed(started, (now) => {
      progress.textContent = progressOf('Importing', now);
    });
    const overwrite = button('Overwrite what was changed here', () => syncNow(source, out, status, true));
    out.replaceChildren(
      el('p', { class: 'ok' }, `Synced at ${job.report.commit.slice(0, 12)}.`),
      importReport(job.report, false),
      ...(job.report.counts.conflict ? [overwrite] : []),
    );
  } catch (error) {
    out.replaceChildren(problemList(error));
  }
  const { data: now } = await api('GET', `/sources/${source.id}`);
  status.className = now.lastSync && now.lastSync.state === 'failed' ? 'error' : 'note';
  status.textContent = lastSync(now);
}

function sourceRow(source) {
  const out = el('div', { class: 'wide', 'aria-live': 'polite' });
  const failed = source.lastSync && source.lastSync.state === 'failed';
  const status = el('p', { class: failed ? 'error' : 'note' }, lastSync(source));
  const facts = [
    source.format,
    `ref ${source.ref || 'HEAD'}`,
    `folder ${source.path || '/'}`,
    source.interval ? `every ${source.interval} s` : 'on request',
    `owner ${source.owner}`,
    source.hasToken ? 'token set' : null,
    source.hasSecret ? 'webhook signed' : null,
  ];
  const stop = async () => {
    await api('DELETE', `/sources/${source.id}`);
    refresh();
  };
  const actions = [
    source.can.change ? button('Sync now', () => syncNow(source, out, status), { class: null }) : null,
    source.can.delete ? button('Stop following', stop) : null,
  ];
  return el(
    'li',
    { class: 'card' },
    el('h3', {}, el('code', {}, source.url)),
    el('p', { class: 'meta' }, facts.filter(Boolean).join(' · ')),
    status,
    el('div', { class: 'actions' }, actions),
    out,
  );
}

/** The form that follows a catalog: its controls, and the body it sends. */
async function followForm() {
  const c = { url: el('input', { name: 'url', autocomplete: 'off', maxlength: '2000' }) };
  c.format = select(
    (await formats()).imports.map((f) => [f.format, f.title]),
    'dokploy',
    { name: 'format' },
  );
  c.ref = el('input', { name: 'ref', placeholder: "main (default: the remote's HEAD)", autocomplete: 'off' });
  c.path = el('input', { name: 'path', placeholder: 'blueprints (default: the root)', autocomplete: 'off' });
  c.interval = el('input', { name: 'interval', type: 'number', min: '60', placeholder: '3600', autocomplete: 'off' });
  c.token = el('input', { name: 'token', type: 'password', autocomplete: 'new-password' });
  c.secret = el('input', { name: 'secret', type: 'password', autocomplete: 'new-password', minlength: '16' });
  const problems = el('div', { 'aria-live': 'polite' });
  const form = el(
    'form',
    { class: 'grid2', novalidate: '' },
    el('h2', { class: 'wide' }, 'Follow a catalog'),
    el(
      'div',
      { class: 'wide' },
      field('Repository URL', c.url, 'Its https or ssh address, on a host the operator allows'),
    ),
    [field('Format', c.format), field('Branch or tag', c.ref), field('Folder', c.path)],
    field('Sync every (seconds)', c.interval, 'Empty: on request and on a push'),
    field('Token (private repositories)', c.token, 'Never shown again'),
    field('Webhook secret', c.secret, 'At least 16 characters; never shown again'),
    el('div', { class: 'wide actions' }, el('button', { type: 'submit' }, 'Follow')),
    el('div', { class: 'wide' }, problems),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await api('POST', '/sources', { body: sourceBody(c) });
      refresh();
    } catch (error) {
      problems.replaceChildren(problemList(error));
    }
  });
  return form;
}

/** What the follow form sends: the empty fields left to the service's defaults. */
function sourceBody(c) {
  const body = { url: c.url.value.trim(), format: c.format.value, path: c.path.value.trim() };
  if (c.ref.value.trim()) body.ref = c.ref.value.trim();
  if (c.interval.value) body.interval = Number.parseInt(c.interval.value, 10);
  if (c.token.value) body.token = c.token.value;
  if (c.secret.value) body.secret = c.secret.value;
  return body;
}

export async function sourcesPage() {
  const sources = await everything('/sources');
  const shown = sources.length
    ? el('ul', { class: 'cards', 'aria-label': 'Sources' }, sources.map(sourceRow))
    : el('p', { class: 'note' }, 'No source yet.');
  const form = may('create') ? await followForm() : null;
  return el('section', {}, el('h1', {}, 'Sources'), el('p', { class: 'note' }, ABOUT), shown, form);
}
