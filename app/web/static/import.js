/* The Import page (`#/import`): a catalog or a Compose file and its .env, previewed as a dry run,
   then imported. */
import { api, followed, formats } from './api.js';
import { diffView, el, field, problemList, row, select, table } from './dom.js';
import { list } from './drafts.js';
import { progressOf } from './http.js';
import { chosenFolder, platformCatalog, stackFiles } from './catalogs.js';

const ABOUT =
  'Bring templates you already have: each becomes a blueprint, checked and measured, its variables parameters. ' +
  'Preview first: nothing is stored until you import.';
const ENTITLEMENTS = { OWNER: 'Owner only', PUBLIC: 'Everyone' };

/** The report of an import (or a sync): the counts, then one row per template with its notes and
    problems, a conflict's diff under it. */
export function importReport(report, dryRun) {
  const counts = Object.entries(report.counts)
    .filter(([, n]) => n)
    .map(([outcome, n]) => `${n} ${outcome}`);
  const rows = report.results.map((r) => {
    const title = r.id && !dryRun ? el('a', { href: `#/blueprints/${r.id}` }, r.title || r.key) : r.title || r.key;
    const notes = [...r.problems.map((p) => el('li', { class: 'error' }, p)), ...r.notes.map((n) => el('li', {}, n))];
    const shown = row(
      title,
      r.outcome,
      el('td', {}, el('ul', { class: 'plain' }, notes), r.diff ? diffView(r.diff) : null),
    );
    shown.className = `outcome-${r.outcome}`;
    return shown;
  });
  const label = dryRun ? 'What the import would do' : 'What the import did';
  const said = el(
    'p',
    { class: dryRun ? 'note' : 'ok' },
    dryRun ? 'Nothing is stored yet: ' : 'Done: ',
    counts.join(', '),
    '.',
  );
  return el('div', {}, said, table(label, ['Template', 'Outcome', 'Notes'], rows, { class: 'report' }));
}

/** The form's controls; `picked` keeps each folder input's files (`chosenFolder`: read when sent),
    `uploaded` the reading of the chosen file into the text, which a preview waits for however soon
    after the choice it is asked for, and `edits` counts the form's changes. */
function importControls(layouts) {
  const c = {
    layouts,
    picked: new Map(),
    uploaded: Promise.resolve(),
    edits: 0,
    out: el('div', { 'aria-live': 'polite' }),
    extra: el('div', { class: 'wide' }),
  };
  c.format = select(
    Object.values(layouts).map((f) => [f.format, f.title]),
    'portainer',
    { name: 'format' },
  );
  c.source = el('input', { name: 'source', maxlength: '200', placeholder: 'portainer/templates', required: true });
  c.documentText = el('textarea', { name: 'document', rows: '10', spellcheck: 'false', wrap: 'off', class: 'mono' });
  c.upload = el('input', { type: 'file', name: 'upload', accept: '.json,.yml,.yaml,.txt' });
  c.folder = el('input', { type: 'file', name: 'stacks', multiple: true });
  c.folder.webkitdirectory = true;
  c.catalogFolder = el('input', { type: 'file', name: 'catalog', multiple: true });
  c.catalogFolder.webkitdirectory = true;
  c.env = el('textarea', { name: 'env', rows: '4', spellcheck: 'false', class: 'mono', placeholder: 'TAG=1.27' });
  c.name = el('input', { name: 'name', maxlength: '200' });
  c.entitlement = select(ENTITLEMENTS, 'OWNER');
  c.tags = el('input', { name: 'tags', placeholder: 'imported, team-a' });
  c.run = el('button', { type: 'button', disabled: true }, 'Import');
  c.filesOf = (input) => c.picked.get(input) || { top: '', files: [] };
  return c;
}

/** The fields each format adds: a platform's folder, Portainer's stack files, a Compose file's name and .env. */
function formatFields(c) {
  const platform = [
    field(
      'The catalog: a folder (a checkout of the platform repository, its templates, or one template)',
      c.catalogFolder,
      'Or paste one Coolify or CapRover template above',
    ),
  ];
  const folders = Object.values(c.layouts).filter((f) => f.folder);
  const stacks = field(
    'Stack files: the folder of the catalog repository',
    c.folder,
    "Each template's repository.stackfile is looked for in it",
  );
  return {
    ...Object.fromEntries(folders.map((f) => [f.format, platform])),
    portainer: [stacks],
    compose: [field('Name of the blueprint', c.name), field('.env (optional)', c.env)],
  };
}

/** What the form sends to `POST /imports`, with what it uses of the files chosen read. */
async function importBody(c) {
  await c.uploaded;
  const fmt = c.format.value;
  const defaults = { entitlementType: c.entitlement.value, tags: list(c.tags.value) };
  let files = {};
  if (fmt === 'compose') {
    defaults.name = c.name.value.trim() || undefined;
    if (c.env.value.trim()) files = { '.env': c.env.value };
  } else if (fmt === 'portainer') {
    files = await stackFiles(c.documentText.value, c.filesOf(c.folder).files);
  }
  const { files: chosen, top } = c.filesOf(c.catalogFolder);
  const named = c.upload.files[0] && c.upload.files[0].name;
  const layout = c.layouts[fmt];
  const document = layout.folder
    ? await platformCatalog(layout, chosen, top, c.documentText.value, named)
    : c.documentText.value;
  return { format: fmt, source: c.source.value.trim(), document, files, defaults };
}

/** The import as a job (a catalog of hundreds takes a while), its progress shown meanwhile, then
    its report; a dry run first, which enables Import unless the form changed since it was asked. */
async function sendImport(c, dryRun) {
  const asked = c.edits;
  c.source.removeAttribute('aria-invalid');
  try {
    const path = `/imports?async=true${dryRun ? '&dryRun=true' : ''}`;
    const { data: started } = await api('POST', path, { body: await importBody(c) });
    const progress = el('p', { class: 'note', role: 'status' });
    c.out.replaceChildren(progress);
    const job = await followed(started, (now) => {
      progress.textContent = progressOf(dryRun ? 'Checking' : 'Importing', now);
    });
    c.out.replaceChildren(dryRun ? '' : el('p', { class: 'ok' }, 'Imported.'), importReport(job.report, dryRun));
    c.run.disabled = !dryRun || c.edits !== asked;
  } catch (error) {
    c.out.replaceChildren(problemList(error));
    if (error.body && error.body.errors && error.body.errors.source) {
      c.source.setAttribute('aria-invalid', 'true'); // the field at fault, marked and in view
      c.source.focus();
    }
    c.out.scrollIntoView({ block: 'nearest' });
  }
}

/** Keeps the files of a chosen folder; the source is named after the catalog's folder, as bpctl
    names it. */
function choose(c, input) {
  const chosen = chosenFolder(input.files);
  c.picked.set(input, chosen);
  if (input === c.catalogFolder && !c.source.value.trim() && chosen.top) c.source.value = chosen.top;
  c.run.disabled = true;
}

/** What changes what a preview showed: any edit disables Import until the next preview. */
function listen(c, form) {
  const byFormat = formatFields(c);
  const shown = () => c.extra.replaceChildren(...(byFormat[c.format.value] || []));
  c.format.addEventListener('change', shown);
  form.addEventListener('input', () => {
    c.edits += 1;
    c.run.disabled = true;
  });
  // text typed or pasted is no longer the chosen file's: its name must not name what was pasted
  c.documentText.addEventListener('input', () => {
    c.upload.value = '';
  });
  c.upload.addEventListener('change', () => {
    const [file] = c.upload.files;
    c.run.disabled = true;
    if (!file) return;
    const reading = file.text().then((text) => {
      if (c.uploaded !== reading) return; // another file chosen meanwhile
      c.documentText.value = text;
      if (!c.source.value.trim()) c.source.value = file.name; // as bpctl names it: importing it again updates
    });
    c.uploaded = reading;
  });
  c.folder.addEventListener('change', () => choose(c, c.folder));
  c.catalogFolder.addEventListener('change', () => choose(c, c.catalogFolder));
  shown();
}

export async function importPage() {
  const layouts = Object.fromEntries(
    (await formats()).imports.filter((f) => f.makes === 'blueprints').map((f) => [f.format, f]),
  );
  const c = importControls(layouts);
  const form = el(
    'form',
    { class: 'grid2', novalidate: '' },
    field('Format', c.format),
    field('Source', c.source, 'Importing the same source again updates what it made'),
    el('div', { class: 'wide' }, field('Catalog or Compose file (paste it, or choose its file)', c.documentText)),
    el('div', { class: 'wide' }, field('File', c.upload)),
    c.extra,
    field('Who may read what it makes', c.entitlement),
    field('Tags for what it makes', c.tags, 'Comma-separated'),
    el('div', { class: 'wide actions' }, el('button', { type: 'submit' }, 'Preview'), c.run),
    el('div', { class: 'wide' }, c.out),
  );
  listen(c, form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    sendImport(c, true);
  });
  c.run.addEventListener('click', () => {
    c.run.disabled = true;
    sendImport(c, false);
  });
  return el('section', {}, el('h1', {}, 'Import'), el('p', { class: 'note' }, ABOUT), form);
}
