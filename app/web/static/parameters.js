/* A template's render form (`#/blueprints/ID/parameters`): a control per parameter; the rendered
   definition measured and fitted, and the most of an integer parameter that fits. */
import { api, everything, isCompose, ourProfiles } from './api.js';
import { button, codeView, DEBOUNCE_MS, diffView, el, field, problemList, refusedAsShown, say, select } from './dom.js';
import { session } from './session.js';
import { needs } from './units.js';
import { fitBadge } from './catalog.js';
import { fitTable, requirementsView, routesView } from './blueprint.js';

/** How a parameter's value is generated: its pattern, or the JWT it is, signed with another. */
function generator(spec) {
  return typeof spec === 'string' ? spec : `a JWT signed with ${spec.jwt.secret}`;
}

/** What a control shows before anything is chosen: the parameter's default, else its first example. */
function initialOf(schema) {
  if (schema.default !== undefined) return schema.default;
  return schema.examples && schema.examples.length ? schema.examples[0] : undefined;
}

function parameterControl(name, schema) {
  const common = { name, 'data-type': schema.type };
  if (schema.enum)
    return select(
      schema.enum.map((v) => [JSON.stringify(v), String(v)]),
      undefined,
      { ...common, 'data-enum': 'true' },
    );
  if (schema.type === 'boolean') return el('input', { ...common, type: 'checkbox' });
  if (schema.type === 'integer' || schema.type === 'number') {
    return el('input', {
      ...common,
      type: 'number',
      min: schema.minimum,
      max: schema.maximum,
      step: schema.type === 'integer' ? '1' : 'any',
    });
  }
  const secret = schema.writeOnly;
  return el('input', {
    ...common,
    type: secret ? 'password' : 'text',
    autocomplete: secret ? 'new-password' : 'off',
    maxlength: schema.maxLength,
  });
}

/** Shows `value` in a parameter's control; `kept` (an instance's values) where it stands for a
    value the service keeps and never shows (a secret, a generated one): empty keeps it. */
function setControl(control, schema, value, kept) {
  const hidden = value === null || (value !== undefined && schema.writeOnly);
  const domain = schema['x-role'] === 'domain'; // empty, the profile's domain gives it
  const shown = hidden ? undefined : value !== undefined ? value : kept || domain ? undefined : initialOf(schema);
  if (control.dataset.enum) control.value = JSON.stringify(shown !== undefined ? shown : initialOf(schema));
  else if (control.type === 'checkbox') control.checked = Boolean(shown);
  else control.value = shown === undefined || (schema.writeOnly && !kept) ? '' : String(shown);
  if (control.type === 'checkbox' || control.dataset.enum) return;
  control.placeholder =
    hidden && kept
      ? 'kept when left empty'
      : schema['x-generate']
        ? 'generated when left empty'
        : domain
          ? "the profile's domain when left empty"
          : schema.writeOnly && initialOf(schema) !== undefined
            ? 'its default when left empty'
            : '';
}

function valueOf(control) {
  if (control.dataset.enum) return JSON.parse(control.value);
  if (control.type === 'checkbox') return control.checked;
  if (control.value === '') return undefined; // its default, example, generated or kept value
  if (control.dataset.type === 'integer') return Number.parseInt(control.value, 10);
  if (control.dataset.type === 'number') return Number(control.value);
  return control.value;
}

const TARGETS = [
  ['compose', 'Docker Compose'],
  ['kubernetes', 'Kubernetes'],
];
const FIT_CAPTION = 'Against the chosen profile; its container defaults are written into the rendered definition';
const NO_PARAMETERS = 'This blueprint declares no parameters: the render is its definition, measured and fitted.';

/** What a parameter's field says under it: its description, type, bounds, and how it is filled. */
function parameterNotes(name, schema, required) {
  return [
    schema.description,
    schema.type,
    required.has(name) ? 'required' : null,
    schema.minimum !== undefined ? `at least ${schema.minimum}` : null,
    schema.maximum !== undefined ? `at most ${schema.maximum}` : null,
    schema['x-generate'] ? `generated (${generator(schema['x-generate'])}) when left empty` : null,
    schema.writeOnly ? 'secret: never shown again' : null,
    schema['x-role'] === 'domain' ? `a domain: empty, <instance>.<the profile's domain>` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The form's controls and what they send: `values()` (the parameters set), `cluster()` (the
    target and claim size of a Compose blueprint rendered for Kubernetes). */
function renderControls(bp, profiles, compose) {
  const page = { bp, profiles, compose, controls: {}, output: el('div', { 'aria-live': 'polite' }) };
  page.properties = (bp.parameters && bp.parameters.properties) || {};
  const choices = [['', 'No profile'], ...profiles.map((p) => [p.id, p.name || '(unnamed)'])];
  page.profile = select(choices, (profiles.find((p) => p.defaultProfile) || {}).id || '');
  // A Compose blueprint renders for Docker Compose or for a Kubernetes cluster; the same choice deploys.
  page.target = select(TARGETS, 'compose', { name: 'target' });
  page.volumeSize = el('input', { name: 'volumeSize', placeholder: '1Gi', autocomplete: 'off', maxlength: '40' });
  page.values = () =>
    Object.fromEntries(
      Object.entries(page.controls)
        .map(([name, c]) => [name, valueOf(c)])
        .filter(([, v]) => v !== undefined),
    );
  page.cluster = () => {
    if (!page.compose || page.target.value !== 'kubernetes') return {};
    const size = page.volumeSize.value.trim();
    return { target: 'kubernetes', ...(size ? { volumeSize: size } : {}) };
  };
  return page;
}

/** `render(maximize)`: the render of what the form shows (the latest answer wins), with the most of
    the integer parameter `maximize` that fits where one is named; `again()` renders after a pause. */
function renderer(page) {
  let [asked, latest, timer] = [false, 0, null];
  const render = async (maximize) => {
    clearTimeout(timer);
    asked = true;
    const mine = ++latest;
    const chosen = page.profiles.find((p) => p.id === page.profile.value);
    const body = { values: page.values(), ...page.cluster(), ...(chosen ? { profile: chosen.id } : {}) };
    const path = `/blueprints/${page.bp.id}/render`;
    try {
      let { data } = await api('POST', path, { body: maximize ? { ...body, maximize } : body });
      const said = [];
      if (data.maximized) {
        const [name, most] = Object.entries(data.maximized)[0];
        if (most !== null && mine === latest) {
          page.controls[name].value = String(most); // what is shown is the render at that value
          ({ data } = await api('POST', path, { body: { ...body, values: page.values() } }));
        }
        const words =
          most === null ? `No value of ${name} fits this profile.` : `At most ${name} = ${most} fits this profile.`;
        said.push(el('p', { class: 'ok' }, words));
      }
      if (mine === latest) page.output.replaceChildren(rendered(data, chosen, said));
    } catch (error) {
      if (mine === latest) page.output.replaceChildren(problemList(error));
    }
  };
  const again = () => {
    if (!asked) return;
    clearTimeout(timer);
    timer = setTimeout(() => render(null), DEBOUNCE_MS);
  };
  return { render, again };
}

/** A render's answer: what it requires, its fit to the chosen profile, the text, the notes. The
    rendered text may hold secrets: it lives in this view only, never in storage or the URL. */
function rendered(data, chosen, said) {
  const fit = data.fit
    ? el(
        'div',
        { 'aria-label': 'Fit' },
        el('h3', {}, `A new instance in ${chosen.name || 'the profile'}: `, fitBadge(data.fit, chosen.limits)),
        fitTable(data.fit, FIT_CAPTION),
      )
    : null;
  return el(
    'div',
    {},
    said,
    el('h2', {}, 'Requirements of the render'),
    requirementsView(data.requirements),
    data.routes && data.routes.length ? [el('h2', {}, 'Where it answers'), routesView(data.routes)] : null,
    fit,
    el('h2', {}, 'Rendered definition'),
    codeView(data.yml, new Set(), 'Rendered definition'),
    notesView(data.notes),
  );
}

/** A parameter's field, with "Most N that fits" for an integer one. */
function parameterField(page, name, schema, render, required) {
  page.controls[name] = parameterControl(name, schema);
  setControl(page.controls[name], schema, undefined, false);
  const most =
    schema.type === 'integer'
      ? button(`Most ${name} that fits`, () => (page.profile.value ? render(name) : say('Choose a profile first.')))
      : null;
  const notes = parameterNotes(name, schema, required);
  return el('div', { class: 'field' }, field(schema.title || name, page.controls[name], notes), most);
}

/** The form set to an instance's kept values, profile and target: what its upgrade starts from. It
    answers what the person changed since: only that is sent, the service keeps the rest. */
function keeping(page, render) {
  return (instance) => {
    for (const [name, control] of Object.entries(page.controls))
      setControl(control, page.properties[name], instance.values[name], true);
    page.profile.value = instance.profile;
    page.target.value = instance.target || 'compose';
    page.volumeSize.value = instance.volumeSize || '';
    const kept = page.values();
    render(null);
    return () =>
      Object.fromEntries(
        Object.entries(page.values()).filter(([name, v]) => JSON.stringify(v) !== JSON.stringify(kept[name])),
      );
  };
}

/** The render form: what is shown is always what its buttons send. It renders at once, and every
    change renders again (the latest answer wins); Deploy sends the form's values, and an upgrade
    the instance's kept values with only what the person changed since choosing it. */
export async function parametersPage([id]) {
  const [{ data: bp }, profiles, teams] = await Promise.all([
    api('GET', `/blueprints/${id}`),
    ourProfiles(),
    everything('/teams'),
  ]);
  const page = renderControls(bp, profiles, await isCompose(bp.blueprintType));
  page.owners = [session.user.username, ...teams.filter((t) => t.can.create).map((t) => `team:${t.name}`)];
  const { render, again } = renderer(page);
  const required = new Set((bp.parameters && bp.parameters.required) || []);
  const rows = Object.entries(page.properties).map(([name, schema]) =>
    parameterField(page, name, schema, render, required),
  );
  const form = renderForm(page, rows);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    render(null);
  });
  form.addEventListener('input', again);
  form.addEventListener('change', again);
  render(null); // at its defaults, at once: from then on it renders as you type
  return el(
    'section',
    {},
    el('h1', {}, `Render ${bp.name || '(unnamed)'}`),
    el('p', {}, el('a', { href: `#/blueprints/${id}` }, 'Back to the blueprint')),
    rows.length ? null : el('p', { class: 'note' }, NO_PARAMETERS),
    form,
    page.output,
    await deployView(page, keeping(page, render)),
  );
}

/** The parameters' fields, the profile to fit and, for a Compose blueprint, the target. The
    service checks the values (a refused one replaces the last result and says why), not the browser. */
function renderForm(page, rows) {
  const forCompose = (label, control, help) => (page.compose ? field(label, control, help) : null);
  return el(
    'form',
    { class: 'grid2', novalidate: '' },
    rows,
    field('Profile to fit', page.profile),
    forCompose(
      'Render for',
      page.target,
      'Kubernetes: a Deployment and a Service per service, the limits counted written in',
    ),
    forCompose(
      'Claim size',
      page.volumeSize,
      'On Kubernetes, each named volume is a claim of this size (1Gi when empty)',
    ),
    el('div', { class: 'actions wide' }, el('button', { type: 'submit' }, 'Render')),
  );
}

/** What a render for Kubernetes did not carry over exactly: each field with its place and why. */
function notesView(notes) {
  if (!notes) return null;
  if (!notes.length) return el('p', { class: 'ok' }, 'Every field of the Compose file carries over to Kubernetes.');
  const items = notes.map((note) => el('li', {}, el('code', {}, note.path), ` ${note.outcome}: ${note.why}`));
  return el('div', {}, el('h2', {}, 'Not carried over exactly'), el('ul', { 'aria-label': 'Notes' }, items));
}

/** Deploy these values as an instance in the chosen profile's room, or upgrade one of your
    instances of this blueprint to its current revision: choosing it puts its kept values in the
    form, and the diff of what the changes do is shown before anything is changed. Each form says
    its outcome, or its refusal, under its own button. */
async function deployView(page, keep) {
  const upgrade = upgradeForm(page.bp, keep);
  const deploy = deployForm(page, upgrade.reload);
  await upgrade.reload();
  return el('section', { 'aria-label': 'Deploy' }, deploy, upgrade.form);
}

/** Deploy: the form's values as an instance named here, in the chosen profile. */
/** Whose an instance is: the caller's, or a team's they may create for (`can.create`). */
function ownerChoice(owners) {
  const named = (o) => (o.startsWith('team:') ? `the team ${o.slice(5)}` : 'you');
  return select(
    owners.map((o) => [o, named(o)]),
    owners[0],
    { name: 'owner' },
  );
}

function deployForm(page, reload) {
  const deployed = el('div', { class: 'wide', 'aria-live': 'polite' });
  const name = el('input', { name: 'instance', placeholder: 'shop', autocomplete: 'off', maxlength: '63' });
  const owner = ownerChoice(page.owners);
  const form = el(
    'form',
    { class: 'grid2', 'aria-label': 'Deploy' },
    el('h2', { class: 'wide' }, 'Deploy'),
    field('Instance name', name, 'Lowercase letters, digits and -: the Compose project or namespace.'),
    page.owners.length > 1 ? field('Whose it is', owner, "A team's: its members upgrade and delete it too.") : null,
    el('div', { class: 'actions' }, el('button', { type: 'submit' }, 'Deploy')),
    deployed,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!page.profile.value) {
      deployed.replaceChildren(el('p', { class: 'error' }, 'Choose a profile first: an instance spends from one.'));
      return;
    }
    const body = {
      name: name.value.trim(),
      owner: owner.value,
      blueprint: page.bp.id,
      profile: page.profile.value,
      values: page.values(),
      ...page.cluster(),
    };
    try {
      const { data } = await api('POST', '/instances', { body });
      const admitted = `${data.name} admitted at revision ${data.rev}: ${needs(data.requirements)}.`;
      deployed.replaceChildren(el('p', { class: 'ok' }, admitted));
      await reload();
    } catch (error) {
      deployed.replaceChildren(problemList(error));
    }
  });
  return form;
}

/** Upgrade an instance: choose one you may change (yours, your teams'; its kept values fill the
    form), show the changes, then upgrade it as it was when they were shown, with the values shown. */
function upgradeForm(bp, keep) {
  const parts = { bp, keep, mine: [], changes: null, etag: null, shown: null };
  parts.upgraded = el('div', { class: 'wide', 'aria-live': 'polite' });
  parts.chosen = select([], '');
  parts.confirm = el('button', { type: 'button', hidden: true }, 'Upgrade');
  const help = `To revision ${bp.rev}: the form above shows its kept values; what you change there is what changes.`;
  const show = el('button', { type: 'submit', class: 'quiet' }, 'Show the changes');
  parts.form = el(
    'form',
    { class: 'grid2', 'aria-label': 'Upgrade an instance' },
    el('h2', { class: 'wide' }, 'Upgrade an instance'),
    field('Instance', parts.chosen, help),
    el('div', { class: 'actions' }, show, parts.confirm),
    parts.upgraded,
  );
  parts.reload = () => reloadChoices(parts);
  parts.chosen.addEventListener('change', () => {
    parts.confirm.hidden = true;
    parts.upgraded.replaceChildren();
    const instance = parts.mine.find((i) => i.id === parts.chosen.value);
    parts.changes = instance ? keep(instance) : null;
  });
  parts.form.addEventListener('submit', (event) => {
    event.preventDefault();
    showUpgrade(parts);
  });
  parts.confirm.addEventListener('click', () => confirmUpgrade(parts));
  return parts;
}

/** The caller's instances of the blueprint, read again after each deploy and upgrade: the list
    offers what is there now, each at its revision. */
async function reloadChoices(parts) {
  const all = await everything(`/instances?blueprint=${parts.bp.id}`);
  parts.mine = all.filter((i) => i.can.change);
  const options = [['', 'Choose one'], ...parts.mine.map((i) => [i.id, `${i.name} (revision ${i.rev})`])];
  parts.chosen.replaceChildren(...options.map(([value, text]) => el('option', { value }, text)));
  parts.form.hidden = !parts.mine.length;
}

/** The upgrade's diff, as a dry run of the instance as read now. */
async function showUpgrade(parts) {
  if (!parts.changes) {
    parts.upgraded.replaceChildren(el('p', { class: 'error' }, 'Choose an instance first.'));
    return;
  }
  try {
    const values = parts.changes();
    ({ etag: parts.etag } = await api('GET', `/instances/${parts.chosen.value}`));
    const { data } = await api('POST', `/instances/${parts.chosen.value}/upgrade?dryRun=true`, {
      body: { rev: parts.bp.rev, values },
      headers: { 'If-Match': parts.etag },
    });
    parts.shown = JSON.stringify(values);
    parts.upgraded.replaceChildren(el('h3', {}, `Changes to ${data.name}`), diffView(data.diff));
    parts.confirm.hidden = false;
  } catch (error) {
    parts.upgraded.replaceChildren(problemList(error));
  }
}

/** The upgrade, of the instance as it was when its changes were shown, with the values they were
    shown for: values changed since are shown again first. */
async function confirmUpgrade(parts) {
  const values = parts.changes();
  if (JSON.stringify(values) !== parts.shown) {
    parts.confirm.hidden = true;
    const again = 'The values changed since the changes were shown: show them again.';
    parts.upgraded.replaceChildren(el('p', { class: 'error' }, again));
    return;
  }
  try {
    const { data } = await api('POST', `/instances/${parts.chosen.value}/upgrade`, {
      body: { rev: parts.bp.rev, values },
      headers: { 'If-Match': parts.etag },
    });
    parts.confirm.hidden = true;
    parts.changes = null;
    await parts.reload();
    const done = `${data.name} upgraded to revision ${data.rev}: ${needs(data.requirements)}.`;
    parts.upgraded.replaceChildren(el('p', { class: 'ok' }, done));
  } catch (error) {
    parts.upgraded.replaceChildren(refusedAsShown(error));
  }
}
