/* Sources (`#/sources`): catalogs followed from git, each with its last sync; one followed, synced
   now (its progress shown, then its report), or let go. */
import { api, everything, followed, formats } from './api.js';
import { el, field, problemList, refresh, select } from './dom.js';
import { progressOf } from './http.js';
import { session } from './session.js';
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

/** Sync `source` now: its progress under its row, then the report, and its last sync said anew. */
async function syncNow(source, out, status, force = false) {
  const progress = el('p', { class: 'note', role: 'status' }, 'Fetching…');
  out.replaceChildren(progress);
  try {
    const { data: started } = await api('POST', `/sources/${source.id}/sync`, { body: { force } });
    const job = await followed(started, (now) => {
      progress.textContent = progressOf('Importing', now);
    });
    const conflicts = job.report.counts.conflict;
    const overwrite = el(
      'button',
      { type: 'button', class: 'quiet', onclick: () => syncNow(source, out, status, true) },
      'Overwrite what was changed here',
    );
    out.replaceChildren(
      el('p', { class: 'ok' }, `Synced at ${job.report.commit.slice(0, 12)}.`),
      importReport(job.report, false),
      ...(conflicts ? [overwrite] : []),
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
  const status = el(
    'p',
    { class: source.lastSync && source.lastSync.state === 'failed' ? 'error' : 'note' },
    lastSync(source),
  );
  return el(
    'li',
    { class: 'card' },
    el('h3', {}, el('code', {}, source.url)),
    el(
      'p',
      { class: 'meta' },
      [
        source.format,
        `ref ${source.ref || 'HEAD'}`,
        `folder ${source.path || '/'}`,
        source.interval ? `every ${source.interval} s` : 'on request',
        `owner ${source.owner}`,
        source.hasToken ? 'token set' : null,
        source.hasSecret ? 'webhook signed' : null,
      ]
        .filter(Boolean)
        .join(' · '),
    ),
    status,
    el(
      'div',
      { class: 'actions' },
      source.can.change
        ? el('button', { type: 'button', onclick: () => syncNow(source, out, status) }, 'Sync now')
        : null,
      source.can.delete
        ? el(
            'button',
            {
              type: 'button',
              class: 'quiet',
              onclick: async () => {
                await api('DELETE', `/sources/${source.id}`);
                refresh();
              },
            },
            'Stop following',
          )
        : null,
    ),
    out,
  );
}

export async function sourcesPage() {
  const sources = await everything('/sources');
  const url = el('input', { name: 'url', autocomplete: 'off', maxlength: '2000' });
  const format = select(
    (await formats()).imports.map((f) => [f.format, f.title]),
    'dokploy',
    { name: 'format' },
  );
  const ref = el('input', { name: 'ref', placeholder: "main (default: the remote's HEAD)", autocomplete: 'off' });
  const path = el('input', { name: 'path', placeholder: 'blueprints (default: the root)', autocomplete: 'off' });
  const interval = el('input', {
    name: 'interval',
    type: 'number',
    min: '60',
    placeholder: '3600',
    autocomplete: 'off',
  });
  const token = el('input', { name: 'token', type: 'password', autocomplete: 'new-password' });
  const secret = el('input', { name: 'secret', type: 'password', autocomplete: 'new-password', minlength: '16' });
  const problems = el('div', { 'aria-live': 'polite' });
  const form = el(
    'form',
    { class: 'grid2', novalidate: '' },
    el('h2', { class: 'wide' }, 'Follow a catalog'),
    el(
      'div',
      { class: 'wide' },
      field('Repository URL', url, 'Its https or ssh address, on a host the operator allows'),
    ),
    field('Format', format),
    field('Branch or tag', ref),
    field('Folder', path),
    field('Sync every (seconds)', interval, 'Empty: on request and on a push'),
    field('Token (private repositories)', token, 'Never shown again'),
    field('Webhook secret', secret, 'At least 16 characters; never shown again'),
    el('div', { class: 'wide actions' }, el('button', { type: 'submit' }, 'Follow')),
    el('div', { class: 'wide' }, problems),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { url: url.value.trim(), format: format.value, path: path.value.trim() };
    if (ref.value.trim()) body.ref = ref.value.trim();
    if (interval.value) body.interval = Number.parseInt(interval.value, 10);
    if (token.value) body.token = token.value;
    if (secret.value) body.secret = secret.value;
    try {
      await api('POST', '/sources', { body });
      refresh();
    } catch (error) {
      problems.replaceChildren(problemList(error));
    }
  });
  return el(
    'section',
    {},
    el('h1', {}, 'Sources'),
    el(
      'p',
      { class: 'note' },
      'Catalogs followed from git: each sync imports what changed since the last, as a new revision; what you changed here is kept and shown as a conflict.',
    ),
    sources.length
      ? el('ul', { class: 'cards', 'aria-label': 'Sources' }, sources.map(sourceRow))
      : el('p', { class: 'note' }, 'No source yet.'),
    session.user.role === 'viewer' ? null : form,
  );
}
