/* A template's render form (`#/blueprints/ID/parameters`): a control per parameter; the rendered
   definition measured and fitted, and the most of an integer parameter that fits. */
import { api, everything } from './api.js';
import { codeView, DEBOUNCE_MS, diffView, el, field, problemList, say, select } from './dom.js';
import { myProfiles, session } from './session.js';
import { needs } from './units.js';
import { fitBadge } from './catalog.js';
import { fitTable, requirementsView } from './blueprint.js';

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
  const shown = hidden ? undefined : value !== undefined ? value : kept ? undefined : initialOf(schema);
  if (control.dataset.enum) control.value = JSON.stringify(shown !== undefined ? shown : initialOf(schema));
  else if (control.type === 'checkbox') control.checked = Boolean(shown);
  else control.value = shown === undefined || (schema.writeOnly && !kept) ? '' : String(shown);
  if (control.type === 'checkbox' || control.dataset.enum) return;
  control.placeholder =
    hidden && kept
      ? 'kept when left empty'
      : schema['x-generate']
        ? 'generated when left empty'
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

/** The render form: what is shown is always what its buttons send. It renders at once, and every
    change renders again (the latest answer wins); Deploy sends the form's values, and an upgrade
    the instance's kept values with only what the person changed since choosing it. */
export async function parametersPage([id]) {
  const [{ data: bp }, profiles] = await Promise.all([api('GET', `/blueprints/${id}`), everything(myProfiles())]);
  const properties = (bp.parameters && bp.parameters.properties) || {};
  const required = new Set((bp.parameters && bp.parameters.required) || []);
  const controls = {};
  const output = el('div', { 'aria-live': 'polite' });
  const profile = select(
    [['', 'No profile'], ...profiles.map((p) => [p.id, p.name || '(unnamed)'])],
    (profiles.find((p) => p.defaultProfile) || {}).id || '',
  );
  const values = () =>
    Object.fromEntries(
      Object.entries(controls)
        .map(([name, c]) => [name, valueOf(c)])
        .filter(([, v]) => v !== undefined),
    );
  // A Compose blueprint renders for Docker Compose or for a Kubernetes cluster; the same choice deploys.
  const compose = /^(docker[-_])?compose$/i.test(bp.blueprintType || '');
  const target = select(
    [
      ['compose', 'Docker Compose'],
      ['kubernetes', 'Kubernetes'],
    ],
    'compose',
    { name: 'target' },
  );
  const volumeSize = el('input', { name: 'volumeSize', placeholder: '1Gi', autocomplete: 'off', maxlength: '40' });
  const cluster = () =>
    compose && target.value === 'kubernetes'
      ? { target: 'kubernetes', ...(volumeSize.value.trim() ? { volumeSize: volumeSize.value.trim() } : {}) }
      : {};

  let asked = false; // whether a render was asked for (the page asks at once): every change renders again
  let latest = 0;
  let timer = null;
  async function render(maximize) {
    clearTimeout(timer);
    asked = true;
    const mine = ++latest;
    const chosen = profiles.find((p) => p.id === profile.value);
    const body = { values: values(), ...cluster(), ...(chosen ? { profile: chosen.id } : {}) };
    try {
      let { data } = await api('POST', `/blueprints/${id}/render`, { body: maximize ? { ...body, maximize } : body });
      const said = [];
      if (data.maximized) {
        const [name, most] = Object.entries(data.maximized)[0];
        if (most !== null && mine === latest) {
          // what is shown is the render at that value
          controls[name].value = String(most);
          ({ data } = await api('POST', `/blueprints/${id}/render`, { body: { ...body, values: values() } }));
        }
        said.push(
          el(
            'p',
            { class: 'ok' },
            most === null ? `No value of ${name} fits this profile.` : `At most ${name} = ${most} fits this profile.`,
          ),
        );
      }
      if (mine !== latest) return;
      // The rendered text may hold secrets: it lives in this view only, never in storage or the URL.
      output.replaceChildren(
        el(
          'div',
          {},
          said,
          el('h2', {}, 'Requirements of the render'),
          requirementsView(data.requirements),
          data.fit
            ? el(
                'div',
                { 'aria-label': 'Fit' },
                el('h3', {}, `A new instance in ${chosen.name || 'the profile'}: `, fitBadge(data.fit, chosen.limits)),
                fitTable(
                  data.fit,
                  'Against the chosen profile; its container defaults are written into the rendered definition',
                ),
              )
            : null,
          el('h2', {}, 'Rendered definition'),
          codeView(data.yml, new Set(), 'Rendered definition'),
          notesView(data.notes),
        ),
      );
    } catch (error) {
      if (mine === latest) output.replaceChildren(problemList(error));
    }
  }
  const again = () => {
    if (!asked) return;
    clearTimeout(timer);
    timer = setTimeout(() => render(null), DEBOUNCE_MS);
  };

  const rows = Object.entries(properties).map(([name, schema]) => {
    controls[name] = parameterControl(name, schema);
    setControl(controls[name], schema, undefined, false);
    const notes = [
      schema.description,
      schema.type,
      required.has(name) ? 'required' : null,
      schema.minimum !== undefined ? `at least ${schema.minimum}` : null,
      schema.maximum !== undefined ? `at most ${schema.maximum}` : null,
      schema['x-generate'] ? `generated (${generator(schema['x-generate'])}) when left empty` : null,
      schema.writeOnly ? 'secret: never shown again' : null,
    ]
      .filter(Boolean)
      .join(' · ');
    const most =
      schema.type === 'integer'
        ? el(
            'button',
            {
              type: 'button',
              class: 'quiet',
              onclick: () => (profile.value ? render(name) : say('Choose a profile first.')),
            },
            `Most ${name} that fits`,
          )
        : null;
    return el('div', { class: 'field' }, field(schema.title || name, controls[name], notes), most);
  });
  // the service checks the values (a refused one replaces the last result and says why), not the browser
  const form = el(
    'form',
    { class: 'grid2', novalidate: '' },
    rows,
    field('Profile to fit', profile),
    compose
      ? field('Render for', target, 'Kubernetes: a Deployment and a Service per service, the limits counted written in')
      : null,
    compose
      ? field('Claim size', volumeSize, 'On Kubernetes, each named volume is a claim of this size (1Gi when empty)')
      : null,
    el('div', { class: 'actions wide' }, el('button', { type: 'submit' }, 'Render')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    render(null);
  });
  form.addEventListener('input', again);
  form.addEventListener('change', again);

  /** The form set to an instance's kept values, profile and target: what its upgrade starts from. */
  function keep(instance) {
    for (const [name, control] of Object.entries(controls))
      setControl(control, properties[name], instance.values[name], true);
    profile.value = instance.profile;
    target.value = instance.target || 'compose';
    volumeSize.value = instance.volumeSize || '';
    const kept = values();
    render(null);
    // only what the person changes afterwards is sent: the service keeps the rest, secrets included
    return () =>
      Object.fromEntries(
        Object.entries(values()).filter(([name, v]) => JSON.stringify(v) !== JSON.stringify(kept[name])),
      );
  }
  render(null); // at its defaults, at once: from then on it renders as you type
  return el(
    'section',
    {},
    el('h1', {}, `Render ${bp.name || '(unnamed)'}`),
    el('p', {}, el('a', { href: `#/blueprints/${id}` }, 'Back to the blueprint')),
    rows.length
      ? null
      : el(
          'p',
          { class: 'note' },
          'This blueprint declares no parameters: the render is its definition, measured and fitted.',
        ),
    form,
    output,
    await deployView(bp, profile, values, cluster, keep),
  );
}

/** What a render for Kubernetes did not carry over exactly: each field with its place and why. */
function notesView(notes) {
  if (!notes) return null;
  if (!notes.length) return el('p', { class: 'ok' }, 'Every field of the Compose file carries over to Kubernetes.');
  return el(
    'div',
    {},
    el('h2', {}, 'Not carried over exactly'),
    el(
      'ul',
      { 'aria-label': 'Notes' },
      notes.map((note) => el('li', {}, el('code', {}, note.path), ` ${note.outcome}: ${note.why}`)),
    ),
  );
}

/** Deploy these values as an instance in the chosen profile's room, or upgrade one of your
    instances of this blueprint to its current revision: choosing it puts its kept values in the
    form, and the diff of what the changes do is shown before anything is changed. Each form says
    its outcome, or its refusal, under its own button. */
async function deployView(bp, profile, values, cluster, keep) {
  const deployed = el('div', { class: 'wide', 'aria-live': 'polite' });
  const name = el('input', { name: 'instance', placeholder: 'shop', autocomplete: 'off', maxlength: '63' });
  const deploy = el(
    'form',
    { class: 'grid2', 'aria-label': 'Deploy' },
    el('h2', { class: 'wide' }, 'Deploy'),
    field('Instance name', name, 'Lowercase letters, digits and -: the Compose project or namespace.'),
    el('div', { class: 'actions' }, el('button', { type: 'submit' }, 'Deploy')),
    deployed,
  );
  const upgraded = el('div', { class: 'wide', 'aria-live': 'polite' });
  const chosen = select([], '');
  const confirm = el('button', { type: 'button', hidden: true }, 'Upgrade');
  const upgrade = el(
    'form',
    { class: 'grid2', 'aria-label': 'Upgrade an instance' },
    el('h2', { class: 'wide' }, 'Upgrade an instance'),
    field(
      'Instance',
      chosen,
      `To revision ${bp.rev}: the form above shows its kept values; what you change there is what changes.`,
    ),
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'quiet' }, 'Show the changes'), confirm),
    upgraded,
  );
  let mine = [];
  /** The caller's instances of the blueprint, read again after each deploy and upgrade: the
      list offers what is there now, each at its revision. */
  async function reload() {
    mine = await everything(`/instances?blueprint=${bp.id}&owner=${encodeURIComponent(session.user.username)}`);
    chosen.replaceChildren(
      ...[['', 'Choose one of yours'], ...mine.map((i) => [i.id, `${i.name} (revision ${i.rev})`])].map(
        ([value, text]) => el('option', { value }, text),
      ),
    );
    upgrade.hidden = !mine.length;
  }
  deploy.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!profile.value) {
      deployed.replaceChildren(el('p', { class: 'error' }, 'Choose a profile first: an instance spends from one.'));
      return;
    }
    try {
      const body = {
        name: name.value.trim(),
        blueprint: bp.id,
        profile: profile.value,
        values: values(),
        ...cluster(),
      };
      const { data } = await api('POST', '/instances', { body });
      deployed.replaceChildren(
        el('p', { class: 'ok' }, `${data.name} admitted at revision ${data.rev}: ${needs(data.requirements)}.`),
      );
      await reload();
    } catch (error) {
      deployed.replaceChildren(problemList(error));
    }
  });
  let changes = null; // the values the person changed since the instance was chosen
  let etag = null;
  chosen.addEventListener('change', () => {
    confirm.hidden = true;
    upgraded.replaceChildren();
    const instance = mine.find((i) => i.id === chosen.value);
    changes = instance ? keep(instance) : null;
  });
  upgrade.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!changes) {
      upgraded.replaceChildren(el('p', { class: 'error' }, 'Choose an instance first.'));
      return;
    }
    try {
      ({ etag } = await api('GET', `/instances/${chosen.value}`));
      const { data } = await api('POST', `/instances/${chosen.value}/upgrade?dryRun=true`, {
        body: { values: changes() },
        headers: { 'If-Match': etag },
      });
      upgraded.replaceChildren(
        el('h3', {}, `Changes to ${data.name}`),
        data.diff ? diffView(data.diff) : el('p', { class: 'note' }, 'Nothing changes.'),
      );
      confirm.hidden = false;
    } catch (error) {
      upgraded.replaceChildren(problemList(error));
    }
  });
  confirm.addEventListener('click', async () => {
    try {
      const { data } = await api('POST', `/instances/${chosen.value}/upgrade`, {
        body: { values: changes() },
        headers: { 'If-Match': etag },
      });
      confirm.hidden = true;
      changes = null;
      await reload();
      upgraded.replaceChildren(
        el('p', { class: 'ok' }, `${data.name} upgraded to revision ${data.rev}: ${needs(data.requirements)}.`),
      );
    } catch (error) {
      upgraded.replaceChildren(
        error.status === 412
          ? el('p', { class: 'error' }, 'It changed since the changes were shown: show them again.')
          : problemList(error),
      );
    }
  });
  await reload();
  return el('section', { 'aria-label': 'Deploy' }, deploy, upgrade);
}
