/* The editor (`#/new`, `#/blueprints/ID/edit`): checked as one types (a dry run), each problem's
   line marked, who saved first named, a Compose file's variables declared as parameters. */
import { api, formats } from './api.js';
import { checkbox, DEBOUNCE_MS, el, field, say, select } from './dom.js';
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

export async function editor([id] = []) {
  let loaded = null;
  let etag = null;
  if (id) ({ data: loaded, etag } = await api('GET', `/blueprints/${id}`));
  const doc = loaded || { entitlementType: 'OWNER', inactive: false, tags: [], entitledUsers: [] };
  const input = (name, attrs = {}) => el('input', { name, value: doc[name] || '', ...attrs });
  const name = input('name', { maxlength: '200' });
  const version = input('version', { maxlength: '64' });
  const type = typeChoice(doc.blueprintType, (await formats()).blueprintTypes);
  const description = el('textarea', { name: 'description', rows: '3', maxlength: '10000' }, doc.description || '');
  const entitlement = select(
    [
      ['OWNER', 'Owner only'],
      ['PUBLIC', 'Everyone'],
      ['CUSTOM', 'The users named'],
    ],
    doc.entitlementType,
  );
  const entitled = el('input', {
    name: 'entitledUsers',
    value: (doc.entitledUsers || []).join(', '),
    placeholder: 'alice, bob',
  });
  const tags = el('input', { name: 'tags', value: (doc.tags || []).join(', '), placeholder: 'web, db' });
  const inactive = checkbox('Inactive', doc.inactive);
  const parameters = el(
    'textarea',
    { name: 'parameters', rows: '6', spellcheck: 'false', class: 'mono' },
    doc.parameters ? JSON.stringify(doc.parameters, null, 2) : '',
  );
  const yml = el(
    'textarea',
    { name: 'yml', spellcheck: 'false', wrap: 'off', 'aria-describedby': 'checks' },
    doc.yml || '',
  );
  const gutter = el('ol', { class: 'gutter', 'aria-hidden': 'true' });
  const checks = el('div', { id: 'checks', 'aria-live': 'polite' });
  const conflict = el('div', { 'aria-live': 'polite' });
  const save = el('button', { type: 'submit' }, id ? 'Save' : 'Create');
  const declare = el('button', { type: 'button', class: 'quiet' }, 'Declare the variables');

  function body() {
    let parsed = null;
    if (parameters.value.trim()) {
      try {
        parsed = JSON.parse(parameters.value);
      } catch {
        throw new ApiError(422, { errors: { parameters: ['Not valid JSON.'] } });
      }
    }
    const sent = {
      name: name.value || null,
      version: version.value || null,
      description: description.value || null,
      blueprintType: type.value(),
      yml: yml.value === '' ? null : yml.value,
      entitlementType: entitlement.value,
      inactive: inactive.box.checked,
      tags: list(tags.value),
      parameters: parsed,
    };
    if (entitlement.value === 'CUSTOM') sent.entitledUsers = list(entitled.value);
    return sent;
  }

  function mark(lines) {
    const count = yml.value.split('\n').length;
    gutter.replaceChildren(
      ...Array.from({ length: count }, (_, i) => el('li', { class: lines.has(i + 1) ? 'bad' : null })),
    );
    gutter.scrollTop = yml.scrollTop;
  }

  function goTo(line) {
    const starts = yml.value
      .split('\n')
      .slice(0, line - 1)
      .reduce((at, l) => at + l.length + 1, 0);
    yml.focus();
    yml.setSelectionRange(starts, starts + (yml.value.split('\n')[line - 1] || '').length);
  }

  function showProblems(error) {
    const found = problemsOf(error).map(([place, message]) => {
      const line = place === 'yml' ? lineOf(yml.value, message.split(':')[0], message) : null;
      return { place, message, line };
    });
    mark(new Set(found.map((p) => p.line).filter(Boolean)));
    checks.replaceChildren(
      el(
        'ul',
        { class: 'problems error', role: 'alert' },
        found.map((p) =>
          el(
            'li',
            {},
            p.place ? `${p.place}: ${p.message}` : p.message,
            p.line ? [' ', el('button', { type: 'button', onclick: () => goTo(p.line) }, `line ${p.line}`)] : null,
          ),
        ),
      ),
    );
  }

  let timer = null;
  let checking = 0;
  async function check() {
    const mine = ++checking;
    let sent;
    try {
      sent = body();
    } catch (error) {
      showProblems(error);
      return;
    }
    try {
      const { data } = id
        ? await api('PUT', `/blueprints/${id}?dryRun=true`, { body: sent })
        : await api('POST', '/blueprints?dryRun=true', { body: sent });
      if (mine !== checking) return;
      mark(new Set());
      checks.replaceChildren(
        data.requirements === null // only safe YAML was asked of it: nothing to show green
          ? el(
              'p',
              { class: 'note' },
              'Not checked: a definition of another type is only read as safe YAML. Choose Compose or Kubernetes to check and measure it.',
            )
          : el('p', { class: 'ok' }, 'No problems. ', needs(data.requirements)),
      );
    } catch (error) {
      if (mine === checking) showProblems(error);
    }
  }

  const form = el(
    'form',
    { class: 'grid2', novalidate: '' },
    field('Name', name),
    field('Version', version),
    el(
      'div',
      { class: 'field' },
      field('Type', type.choice, 'Compose and Kubernetes definitions are checked and measured'),
      type.other,
    ),
    field('Who may read it', entitlement),
    field('Users who may read it (with "The users named")', entitled),
    field('Tags', tags, 'Comma-separated'),
    el('div', { class: 'wide' }, field('Description', description)),
    inactive.node,
    el(
      'div',
      { class: 'wide field' },
      el('label', { for: 'yml-input' }, 'Definition (YAML)'),
      el('div', { class: 'editor' }, gutter, yml),
    ),
    el('div', { class: 'wide' }, checks),
    el(
      'div',
      { class: 'wide' },
      field('Parameters (a JSON Schema of type object; empty for none)', parameters),
      el(
        'div',
        { class: 'actions' },
        declare,
        el('small', { class: 'note' }, 'Compose: each ${VARIABLE} of the definition, typed from its default'),
      ),
    ),
    el(
      'div',
      { class: 'wide actions' },
      save,
      el('a', { class: 'button quiet', href: id ? `#/blueprints/${id}` : '#/' }, 'Cancel'),
    ),
    el('div', { class: 'wide' }, conflict),
  );
  yml.id = 'yml-input';
  form.addEventListener('input', () => {
    clearTimeout(timer);
    mark(new Set());
    timer = setTimeout(check, DEBOUNCE_MS);
  });
  yml.addEventListener('scroll', () => {
    gutter.scrollTop = yml.scrollTop;
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearTimeout(timer);
    let sent;
    try {
      sent = body();
    } catch (error) {
      showProblems(error);
      return;
    }
    save.disabled = true;
    try {
      const { data } = id
        ? await api('PUT', `/blueprints/${id}`, { body: sent, headers: { 'If-Match': etag } })
        : await api('POST', '/blueprints', { body: sent });
      say(id ? 'Saved.' : 'Created.');
      location.hash = `#/blueprints/${data.id}`;
    } catch (error) {
      if (error.status === 412) await showConflict();
      else showProblems(error);
    } finally {
      save.disabled = false;
    }
  });

  /** Someone saved first: who, when, and what they changed since this editor opened. */
  async function showConflict() {
    const { data: current, etag: currentTag } = await api('GET', `/blueprints/${id}`);
    const theirs = await changesView(id, loaded.rev, current.rev);
    const overwrite = el(
      'button',
      {
        type: 'button',
        onclick: () => {
          etag = currentTag;
          loaded = current;
          conflict.replaceChildren();
          form.requestSubmit();
        },
      },
      'Save mine over theirs',
    );
    conflict.replaceChildren(
      el(
        'div',
        { role: 'alert' },
        el(
          'p',
          { class: 'error' },
          `${current.updatedBy} changed this blueprint at ${when(current.updatedAt)} (revision ${current.rev}) since you opened it. Nothing of yours was saved.`,
        ),
        theirs,
        el(
          'div',
          { class: 'actions' },
          overwrite,
          el('a', { class: 'button quiet', href: `#/blueprints/${id}` }, 'Discard mine and see theirs'),
        ),
      ),
    );
  }

  /** The parameters a Compose import would infer from the definition (a dry run), added to the
      ones already declared: those stay as they are. */
  declare.addEventListener('click', async () => {
    try {
      const { data } = await api('POST', '/imports?dryRun=true', {
        body: {
          format: 'compose',
          source: 'editor',
          document: yml.value,
          defaults: { name: name.value.trim() || 'draft' },
        },
      });
      const [result] = data.results;
      if (result.outcome === 'refused') {
        showProblems(new ApiError(422, { errors: { yml: result.problems.map((p) => p.replace(/^yml: /, '')) } }));
        return;
      }
      const current = parameters.value.trim() ? JSON.parse(parameters.value) : null;
      const { merged, added } = declared(current, result.blueprint.parameters);
      parameters.value = JSON.stringify(merged, null, 2);
      say(added.length ? `Declared ${added.join(', ')}.` : 'Every variable is declared already.');
      check();
    } catch (error) {
      showProblems(error);
    }
  });

  mark(new Set());
  if (loaded) check();
  return el('section', {}, el('h1', {}, id ? `Edit ${loaded.name || '(unnamed)'}` : 'New blueprint'), form);
}
