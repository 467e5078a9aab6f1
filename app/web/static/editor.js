/* The editor (`#/new`, `#/blueprints/ID/edit`): checked as one types (a dry run), each problem's
   line marked, who saved first named, a Compose file's variables declared as parameters. */
import { api, formats } from './api.js';
import { button, checkbox, DEBOUNCE_MS, el, field, linkButton, say, select } from './dom.js';
import { ApiError, problemsOf } from './http.js';
import { needs, when } from './units.js';
import { changesView } from './blueprint.js';
import { declared, lineOf, list } from './drafts.js';

/** The type as a choice (Compose, Kubernetes, another), the stored spelling of a known one kept,
    and a field for another's name; `value()` is what is sent. `types` are the ones the service
    checks, with their aliases (`GET /formats`). */
function typeChoice(stored, types) {
  const known = stored && types.some((t) => t.aliases.includes(stored.toLowerCase()));
  const options = [
    ['compose', 'Compose'],
    ['kubernetes', 'Kubernetes'],
    ['other', 'Another type (not checked)'],
  ];
  if (known && !['compose', 'kubernetes'].includes(stored)) options.unshift([stored, stored]);
  const choice = select(options, known ? stored : stored ? 'other' : 'compose');
  const name = el('input', {
    name: 'otherType',
    value: known ? '' : stored || '',
    maxlength: '64',
    placeholder: 'helm',
    'aria-label': 'The other type',
  });
  const other = el('div', { hidden: choice.value !== 'other' }, name);
  choice.addEventListener('change', () => {
    other.hidden = choice.value !== 'other';
  });
  return { choice, other, value: () => (choice.value === 'other' ? name.value.trim() || null : choice.value) };
}

const ENTITLEMENTS = { OWNER: 'Owner only', PUBLIC: 'Everyone', CUSTOM: 'The users named' };
const NOT_CHECKED =
  'Not checked: a definition of another type is only read as safe YAML. Choose Compose or Kubernetes to check and ' +
  'measure it.';

/** The editor's controls, filled from `doc` (the blueprint, or a new one's defaults). */
function editorControls(doc, types) {
  const input = (name, attrs = {}) => el('input', { name, value: doc[name] || '', ...attrs });
  const text = (name, attrs, value) => el('textarea', { name, ...attrs }, value || '');
  const ed = { name: input('name', { maxlength: '200' }), version: input('version', { maxlength: '64' }) };
  ed.type = typeChoice(doc.blueprintType, types);
  ed.description = text('description', { rows: '3', maxlength: '10000' }, doc.description);
  ed.entitlement = select(ENTITLEMENTS, doc.entitlementType);
  const users = (doc.entitledUsers || []).join(', ');
  ed.entitled = el('input', { name: 'entitledUsers', value: users, placeholder: 'alice, bob' });
  ed.tags = el('input', { name: 'tags', value: (doc.tags || []).join(', '), placeholder: 'web, db' });
  ed.inactive = checkbox('Inactive', doc.inactive);
  const parameters = doc.parameters ? JSON.stringify(doc.parameters, null, 2) : '';
  ed.parameters = text('parameters', { rows: '6', spellcheck: 'false', class: 'mono' }, parameters);
  ed.yml = text('yml', { spellcheck: 'false', wrap: 'off', 'aria-describedby': 'checks', id: 'yml-input' }, doc.yml);
  ed.gutter = el('ol', { class: 'gutter', 'aria-hidden': 'true' });
  ed.checks = el('div', { id: 'checks', 'aria-live': 'polite' });
  ed.conflict = el('div', { 'aria-live': 'polite' });
  ed.declare = el('button', { type: 'button', class: 'quiet' }, 'Declare the variables');
  return ed;
}

/** The body a save (or a check) sends; a 422 naming `parameters` where they are not JSON. */
function draftBody(ed) {
  let parsed = null;
  if (ed.parameters.value.trim()) {
    try {
      parsed = JSON.parse(ed.parameters.value);
    } catch {
      throw new ApiError(422, { errors: { parameters: ['Not valid JSON.'] } });
    }
  }
  const sent = {
    name: ed.name.value || null,
    version: ed.version.value || null,
    description: ed.description.value || null,
    blueprintType: ed.type.value(),
    yml: ed.yml.value === '' ? null : ed.yml.value,
    entitlementType: ed.entitlement.value,
    inactive: ed.inactive.box.checked,
    tags: list(ed.tags.value),
    parameters: parsed,
  };
  if (ed.entitlement.value === 'CUSTOM') sent.entitledUsers = list(ed.entitled.value);
  return sent;
}

/** Marks the definition's `lines` (1-based) in its gutter. */
function mark(ed, lines) {
  const count = ed.yml.value.split('\n').length;
  ed.gutter.replaceChildren(
    ...Array.from({ length: count }, (_, i) => el('li', { class: lines.has(i + 1) ? 'bad' : null })),
  );
  ed.gutter.scrollTop = ed.yml.scrollTop;
}

/** Puts the caret on the definition's `line`, selected. */
function goTo(ed, line) {
  const lines = ed.yml.value.split('\n');
  const starts = lines.slice(0, line - 1).reduce((at, l) => at + l.length + 1, 0);
  ed.yml.focus();
  ed.yml.setSelectionRange(starts, starts + (lines[line - 1] || '').length);
}

/** The problems of `error`, each with a button to the line of the definition it names. */
function showProblems(ed, error) {
  const found = problemsOf(error).map(([place, message]) => {
    const line = place === 'yml' ? lineOf(ed.yml.value, message.split(':')[0], message) : null;
    return { place, message, line };
  });
  mark(ed, new Set(found.map((p) => p.line).filter(Boolean)));
  const item = (p) =>
    el(
      'li',
      {},
      p.place ? `${p.place}: ${p.message}` : p.message,
      p.line ? [' ', el('button', { type: 'button', onclick: () => goTo(ed, p.line) }, `line ${p.line}`)] : null,
    );
  ed.checks.replaceChildren(el('ul', { class: 'problems error', role: 'alert' }, found.map(item)));
}

/** The body of what is typed, or null with its problems shown. */
function drafted(ed) {
  try {
    return draftBody(ed);
  } catch (error) {
    showProblems(ed, error);
    return null;
  }
}

/** A check of what is typed: the save as a dry run, its problems or what it needs (the latest wins). */
function checker(ed) {
  let checking = 0;
  return async () => {
    const mine = ++checking;
    const sent = drafted(ed);
    if (sent === null) return;
    try {
      const path = ed.id ? `/blueprints/${ed.id}?dryRun=true` : '/blueprints?dryRun=true';
      const { data } = await api(ed.id ? 'PUT' : 'POST', path, { body: sent });
      if (mine !== checking) return;
      mark(ed, new Set());
      ed.checks.replaceChildren(
        data.requirements === null // only safe YAML was asked of it: nothing to show green
          ? el('p', { class: 'note' }, NOT_CHECKED)
          : el('p', { class: 'ok' }, 'No problems. ', needs(data.requirements)),
      );
    } catch (error) {
      if (mine === checking) showProblems(ed, error);
    }
  };
}

/** The form: its fields, the definition with its gutter, the checks, Save and Cancel; the Save button. */
function editorForm(ed) {
  const saving = el('button', { type: 'submit' }, ed.id ? 'Save' : 'Create');
  const cancel = el('a', { class: 'button quiet', href: ed.id ? `#/blueprints/${ed.id}` : '#/' }, 'Cancel');
  const typed = field('Type', ed.type.choice, 'Compose and Kubernetes definitions are checked and measured');
  const definition = el('label', { for: 'yml-input' }, 'Definition (YAML)');
  const declaring = el(
    'small',
    { class: 'note' },
    'Compose: each ${VARIABLE} of the definition, typed from its default',
  );
  const parameters = field('Parameters (a JSON Schema of type object; empty for none)', ed.parameters);
  ed.form = el(
    'form',
    { class: 'grid2', novalidate: '' },
    [field('Name', ed.name), field('Version', ed.version), el('div', { class: 'field' }, typed, ed.type.other)],
    field('Who may read it', ed.entitlement),
    field('Users who may read it (with "The users named")', ed.entitled),
    field('Tags', ed.tags, 'Comma-separated'),
    el('div', { class: 'wide' }, field('Description', ed.description)),
    ed.inactive.node,
    el('div', { class: 'wide field' }, definition, el('div', { class: 'editor' }, ed.gutter, ed.yml)),
    el('div', { class: 'wide' }, ed.checks),
    el('div', { class: 'wide' }, parameters, el('div', { class: 'actions' }, ed.declare, declaring)),
    el('div', { class: 'wide actions' }, saving, cancel),
    el('div', { class: 'wide' }, ed.conflict),
  );
  return saving;
}

/** Saves what is typed: a create, or a change of the version this editor opened (If-Match). */
async function save(ed, saving) {
  const sent = drafted(ed);
  if (sent === null) return;
  saving.disabled = true;
  try {
    const { data } = ed.id
      ? await api('PUT', `/blueprints/${ed.id}`, { body: sent, headers: { 'If-Match': ed.etag } })
      : await api('POST', '/blueprints', { body: sent });
    say(ed.id ? 'Saved.' : 'Created.');
    location.hash = `#/blueprints/${data.id}`;
  } catch (error) {
    if (error.status === 412) await showConflict(ed);
    else showProblems(ed, error);
  } finally {
    saving.disabled = false;
  }
}

/** Someone saved first: who, when, and what they changed since this editor opened. */
async function showConflict(ed) {
  const { data: current, etag: currentTag } = await api('GET', `/blueprints/${ed.id}`);
  const theirs = await changesView(ed.id, ed.loaded.rev, current.rev);
  const overwrite = button(
    'Save mine over theirs',
    () => {
      [ed.etag, ed.loaded] = [currentTag, current];
      ed.conflict.replaceChildren();
      ed.form.requestSubmit();
    },
    { class: null },
  );
  const changed = `${current.updatedBy} changed this blueprint at ${when(current.updatedAt)} (revision ${current.rev})`;
  ed.conflict.replaceChildren(
    el(
      'div',
      { role: 'alert' },
      el('p', { class: 'error' }, `${changed} since you opened it. Nothing of yours was saved.`),
      theirs,
      el('div', { class: 'actions' }, overwrite, linkButton('Discard mine and see theirs', `#/blueprints/${ed.id}`)),
    ),
  );
}

/** The parameters a Compose import would infer from the definition (a dry run), added to the ones
    already declared: those stay as they are. */
async function declareVariables(ed, check) {
  try {
    const body = {
      format: 'compose',
      source: 'editor',
      document: ed.yml.value,
      defaults: { name: ed.name.value.trim() || 'draft' },
    };
    const { data } = await api('POST', '/imports?dryRun=true', { body });
    const [result] = data.results;
    if (result.outcome === 'refused') {
      showProblems(ed, new ApiError(422, { errors: { yml: result.problems.map((p) => p.replace(/^yml: /, '')) } }));
      return;
    }
    const current = ed.parameters.value.trim() ? JSON.parse(ed.parameters.value) : null;
    const { merged, added } = declared(current, result.blueprint.parameters);
    ed.parameters.value = JSON.stringify(merged, null, 2);
    say(added.length ? `Declared ${added.join(', ')}.` : 'Every variable is declared already.');
    check();
  } catch (error) {
    showProblems(ed, error);
  }
}

export async function editor([id] = []) {
  const opened = id ? await api('GET', `/blueprints/${id}`) : { data: null, etag: null };
  const doc = opened.data || { entitlementType: 'OWNER', inactive: false, tags: [], entitledUsers: [] };
  const ed = { ...editorControls(doc, (await formats()).blueprintTypes), id, loaded: opened.data, etag: opened.etag };
  const check = checker(ed);
  const saving = editorForm(ed);
  let timer = null;
  ed.form.addEventListener('input', () => {
    clearTimeout(timer);
    mark(ed, new Set());
    timer = setTimeout(check, DEBOUNCE_MS);
  });
  ed.yml.addEventListener('scroll', () => {
    ed.gutter.scrollTop = ed.yml.scrollTop;
  });
  ed.form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(timer);
    save(ed, saving);
  });
  ed.declare.addEventListener('click', () => declareVariables(ed, check));
  mark(ed, new Set());
  if (ed.loaded) check();
  const title = id ? `Edit ${ed.loaded.name || '(unnamed)'}` : 'New blueprint';
  return el('section', {}, el('h1', {}, title), ed.form);
}
