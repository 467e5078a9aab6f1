/* The Import page (`#/import`): a catalog or a Compose file and its .env, previewed as a dry run,
   then imported. */
import { api, followed, formats } from './api.js';
import { diffView, el, field, problemList, select } from './dom.js';
import { progressOf } from './http.js';

/** The report of an import (or a sync): the counts, then one row per template with its notes and
    problems, a conflict's diff under it. */
export function importReport(report, dryRun) {
  const counts = Object.entries(report.counts)
    .filter(([, n]) => n)
    .map(([outcome, n]) => `${n} ${outcome}`);
  return el(
    'div',
    {},
    el('p', { class: dryRun ? 'note' : 'ok' }, dryRun ? 'Nothing is stored yet: ' : 'Done: ', counts.join(', '), '.'),
    el(
      'div',
      { class: 'scroll' },
      el(
        'table',
        { class: 'report', 'aria-label': dryRun ? 'What the import would do' : 'What the import did' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Template', 'Outcome', 'Notes'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el(
          'tbody',
          {},
          report.results.map((r) =>
            el(
              'tr',
              { class: `outcome-${r.outcome}` },
              el(
                'td',
                {},
                r.id && !dryRun ? el('a', { href: `#/blueprints/${r.id}` }, r.title || r.key) : r.title || r.key,
              ),
              el('td', {}, r.outcome),
              el(
                'td',
                {},
                el('ul', { class: 'plain' }, [
                  ...r.problems.map((p) => el('li', { class: 'error' }, p)),
                  ...r.notes.map((n) => el('li', {}, n)),
                ]),
                r.diff ? diffView(r.diff) : null,
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

/** The stack files a Portainer catalog names, from the files of a chosen folder (a checkout of
    the catalog's repository): each path the catalog names, from the folder's top. */
function stackFiles(catalogText, chosen) {
  let catalog;
  try {
    catalog = JSON.parse(catalogText);
  } catch {
    return {};
  }
  const named = (catalog.templates || []).map((t) => t.repository && t.repository.stackfile).filter(Boolean);
  const found = {};
  for (const path of named) {
    const match = chosen.find((f) => f.path === path);
    if (match) found[path] = match.text;
  }
  return found;
}

/** A platform's catalog ({key: template}) from the files of a chosen folder (a checkout of the
    platform's repository, its templates' folder, or one Dokploy template's folder; `top` is the
    chosen folder's name), else the one template pasted or chosen as a file (`text`, named `name`).
    `layout` is how the service reads the platform's folder (`GET /formats`). */
function platformCatalog(layout, chosen, top, text, name) {
  const below = `${layout.folder}/`;
  const inCatalog = chosen.some((f) => f.path.startsWith(below))
    ? chosen.filter((f) => f.path.startsWith(below))
    : chosen;
  const found = {};
  if (layout.marker) {
    // a folder per template, the marker its Compose file
    for (const file of inCatalog) {
      const parts = file.path.split('/');
      const base = parts.pop();
      if (!layout.files.includes(base)) continue;
      const key = parts.length ? parts[parts.length - 1] : top;
      (found[key] = found[key] || {})[base] = file.text;
    }
    return Object.fromEntries(Object.entries(found).filter(([, files]) => files[layout.marker] !== undefined));
  }
  for (const file of inCatalog.filter((f) => /\.ya?ml$/.test(f.path)))
    found[
      file.path
        .split('/')
        .pop()
        .replace(/\.ya?ml$/, '')
    ] = file.text;
  if (!Object.keys(found).length && text.trim()) found[(name || pastedName(text)).replace(/\.ya?ml$/, '')] = text;
  return found;
}

/** The name of a pasted template, which has no file name: a CapRover app's `displayName`, else
    the first service its Compose file declares (as its platform names the file after it). */
function pastedName(text) {
  const display = /^\s*displayName:\s*['"]?([^'"\n]+?)['"]?\s*$/m.exec(text);
  if (display) return display[1].toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
  const service = /^services:\s*\n(?:\s*#.*\n)*\s+([A-Za-z0-9._-]+):/m.exec(text);
  return service ? service[1] : 'template';
}

export async function importPage() {
  const layouts = Object.fromEntries(
    (await formats()).imports.filter((f) => f.makes === 'blueprints').map((f) => [f.format, f]),
  );
  const format = select(
    Object.values(layouts).map((f) => [f.format, f.title]),
    'portainer',
    { name: 'format' },
  );
  const source = el('input', { name: 'source', maxlength: '200', placeholder: 'portainer/templates', required: true });
  const documentText = el('textarea', {
    name: 'document',
    rows: '10',
    spellcheck: 'false',
    wrap: 'off',
    class: 'mono',
  });
  const upload = el('input', { type: 'file', name: 'upload', accept: '.json,.yml,.yaml,.txt' });
  const folder = el('input', { type: 'file', name: 'stacks', multiple: true });
  folder.webkitdirectory = true;
  const env = el('textarea', { name: 'env', rows: '4', spellcheck: 'false', class: 'mono', placeholder: 'TAG=1.27' });
  const name = el('input', { name: 'name', maxlength: '200' });
  const entitlement = select(
    [
      ['OWNER', 'Owner only'],
      ['PUBLIC', 'Everyone'],
    ],
    'OWNER',
  );
  const tags = el('input', { name: 'tags', placeholder: 'imported, team-a' });
  const out = el('div', { 'aria-live': 'polite' });
  const run = el('button', { type: 'button', disabled: true }, 'Import');
  const picked = new Map(); // each folder input -> { top: the folder's name, files: [{ path, text }] }
  const filesOf = (input) => picked.get(input) || { top: '', files: [] };
  const catalogFolder = el('input', { type: 'file', name: 'catalog', multiple: true });
  catalogFolder.webkitdirectory = true;
  const platform = [
    field(
      'The catalog: a folder (a checkout of the platform repository, its templates, or one template)',
      catalogFolder,
      'Or paste one Coolify or CapRover template above',
    ),
  ];
  const byFormat = {
    ...Object.fromEntries(
      Object.values(layouts)
        .filter((f) => f.folder)
        .map((f) => [f.format, platform]),
    ),
    portainer: [
      field(
        'Stack files: the folder of the catalog repository',
        folder,
        "Each template's repository.stackfile is looked for in it",
      ),
    ],
    compose: [field('Name of the blueprint', name), field('.env (optional)', env)],
  };
  const extra = el('div', { class: 'wide' });
  function shown() {
    extra.replaceChildren(...(byFormat[format.value] || []));
  }

  function body() {
    const fmt = format.value;
    const defaults = {
      entitlementType: entitlement.value,
      tags: tags.value
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    };
    let files = {};
    if (fmt === 'compose') {
      defaults.name = name.value.trim() || undefined;
      if (env.value.trim()) files = { '.env': env.value };
    } else if (fmt === 'portainer') {
      files = stackFiles(documentText.value, filesOf(folder).files);
    }
    const document = layouts[fmt].folder
      ? platformCatalog(
          layouts[fmt],
          filesOf(catalogFolder).files,
          filesOf(catalogFolder).top,
          documentText.value,
          upload.files[0] && upload.files[0].name,
        )
      : documentText.value;
    return { format: fmt, source: source.value.trim(), document, files, defaults };
  }

  async function send(dryRun) {
    source.removeAttribute('aria-invalid');
    try {
      // a job: a catalog of hundreds takes a while, its progress shown meanwhile
      const { data: started } = await api('POST', `/imports?async=true${dryRun ? '&dryRun=true' : ''}`, {
        body: body(),
      });
      const progress = el('p', { class: 'note', role: 'status' });
      out.replaceChildren(progress);
      const job = await followed(started, (now) => {
        progress.textContent = progressOf(dryRun ? 'Checking' : 'Importing', now);
      });
      const data = job.report;
      out.replaceChildren(dryRun ? '' : el('p', { class: 'ok' }, 'Imported.'), importReport(data, dryRun));
      run.disabled = !dryRun;
    } catch (error) {
      out.replaceChildren(problemList(error));
      if (error.body && error.body.errors && error.body.errors.source) {
        // the field at fault, marked and in view
        source.setAttribute('aria-invalid', 'true');
        source.focus();
      }
      out.scrollIntoView({ block: 'nearest' });
    }
  }

  const form = el(
    'form',
    { class: 'grid2', novalidate: '' },
    field('Format', format),
    field('Source', source, 'Importing the same source again updates what it made'),
    el('div', { class: 'wide' }, field('Catalog or Compose file (paste it, or choose its file)', documentText)),
    el('div', { class: 'wide' }, field('File', upload)),
    extra,
    field('Who may read what it makes', entitlement),
    field('Tags for what it makes', tags, 'Comma-separated'),
    el('div', { class: 'wide actions' }, el('button', { type: 'submit' }, 'Preview'), run),
    el('div', { class: 'wide' }, out),
  );
  format.addEventListener('change', shown);
  form.addEventListener('input', () => {
    run.disabled = true;
  });
  // text typed or pasted is no longer the chosen file's: its name must not name what was pasted
  documentText.addEventListener('input', () => {
    upload.value = '';
  });
  upload.addEventListener('change', async () => {
    if (upload.files[0]) {
      documentText.value = await upload.files[0].text();
      if (!source.value.trim()) source.value = upload.files[0].name; // as bpctl names it: importing it again updates
    }
    run.disabled = true;
  });
  async function choose(input) {
    const inFolder = (f) => (f.webkitRelativePath || f.name).split('/').slice(1).join('/'); // without the folder's own name
    const files = [...input.files];
    const top = files.length ? (files[0].webkitRelativePath || '').split('/')[0] : '';
    picked.set(input, {
      top,
      files: await Promise.all(files.map(async (f) => ({ path: inFolder(f), text: await f.text() }))),
    });
    if (input === catalogFolder && !source.value.trim() && top) source.value = top; // as bpctl names it
    run.disabled = true;
  }
  folder.addEventListener('change', () => choose(folder));
  catalogFolder.addEventListener('change', () => choose(catalogFolder));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    send(true);
  });
  run.addEventListener('click', () => {
    run.disabled = true;
    send(false);
  });
  shown();
  return el(
    'section',
    {},
    el('h1', {}, 'Import'),
    el(
      'p',
      { class: 'note' },
      'Bring templates you already have: each becomes a blueprint, checked and measured, its variables parameters. Preview first: nothing is stored until you import.',
    ),
    form,
  );
}
