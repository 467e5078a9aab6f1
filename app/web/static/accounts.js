/* Profiles (`#/profiles`) and, for admins, users (`#/users`). */
import { api, everything } from './api.js';
import { checkbox, el, field, problemList, refresh, say, select } from './dom.js';
import { session } from './session.js';
import { AMOUNT, caps, monthly, RESOURCE_KEYS, RESOURCES, when } from './units.js';
import { instanceTable } from './blueprint.js';

const CAPS = [
  ['memoryCap', 'Memory cap', '2Gi, 512M'],
  ['cpuCap', 'CPU cap', '2, 0.5, 500m'],
  ['containerCap', 'Container cap', '10'],
  ['storageCap', 'Storage cap', '20Gi'],
];
// a container's defaults and maximum: [field, member, label, hint]
const PER_CONTAINER = [
  ['containerDefaults', 'memory', 'Default memory per container', '256Mi'],
  ['containerDefaults', 'cpu', 'Default CPU per container', '250m'],
  ['containerMax', 'memory', 'Most memory per container', '1Gi'],
  ['containerMax', 'cpu', 'Most CPU per container', '1'],
];
const NOTE =
  'What a container that declares no limit counts, and is given in a render; a container over the most does not fit.';
// the Pod Security Standards' levels a profile holds its renders and instances to
const LEVELS = [
  ['baseline', 'Baseline'],
  ['restricted', 'Restricted'],
  ['privileged', 'Privileged (admins)'],
];

/** `{memory, cpu}` of a profile's defaults (or maximum) from the form, null when both are empty. */
function perContainer(inputs, field) {
  const given = Object.fromEntries(
    PER_CONTAINER.filter(([f]) => f === field).map(([, member]) => [
      member,
      inputs[`${field}.${member}`].value.trim() || null,
    ]),
  );
  return Object.values(given).some((v) => v !== null) ? given : null;
}

export async function profilesPage() {
  const profiles = await everything('/profiles');
  const admin = session.user.role === 'admin';
  let editing = null;
  let editingTag = null;
  const inputs = Object.fromEntries(
    [['name', 'Name', ''], ...CAPS].map(([key, , hint]) => [key, el('input', { name: key, placeholder: hint })]),
  );
  for (const [f, member, , hint] of PER_CONTAINER)
    inputs[`${f}.${member}`] = el('input', { name: `${f}.${member}`, placeholder: hint });
  const shared = el('input', { name: 'entitledUsers', placeholder: 'bob, carol', autocomplete: 'off' });
  const level = select(LEVELS, 'baseline', { name: 'podSecurity' });
  const isDefault = checkbox('The default profile', false);
  const title = el('h2', { class: 'wide' }, 'New profile');
  const problems = el('div', { 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit' }, 'Create');
  const cancel = el('button', { type: 'button', class: 'quiet', hidden: true }, 'Cancel');
  const form = el(
    'form',
    { class: 'grid2' },
    title,
    el('div', { class: 'wide' }, field('Name', inputs.name)),
    CAPS.map(([key, label]) => field(label, inputs[key])),
    el('p', { class: 'wide note' }, NOTE),
    PER_CONTAINER.map(([f, member, label]) => field(label, inputs[`${f}.${member}`])),
    el(
      'div',
      { class: 'wide' },
      field('Shared with (usernames)', shared, 'They may read it and fit to it; only you and admins change it.'),
    ),
    el(
      'div',
      { class: 'wide' },
      field(
        'Pod security',
        level,
        "What its instances may run, on a Docker host and on a cluster: baseline refuses privileged containers, the host's namespaces and paths; restricted also root, privilege escalation and capabilities.",
      ),
    ),
    isDefault.node,
    el('div', { class: 'wide actions' }, submit, cancel),
    el('div', { class: 'wide' }, problems),
  );

  function edit(profile, tag) {
    editing = profile;
    editingTag = tag;
    title.textContent = profile ? `Edit ${profile.name || '(unnamed)'}` : 'New profile';
    submit.textContent = profile ? 'Save' : 'Create';
    cancel.hidden = !profile;
    for (const key of Object.keys(inputs)) {
      const [f, member] = key.split('.');
      inputs[key].value = (profile && (member ? (profile[f] || {})[member] : profile[key])) || '';
    }
    shared.value = profile ? (profile.entitledUsers || []).join(', ') : '';
    level.value = profile ? profile.podSecurity : 'baseline';
    isDefault.box.checked = Boolean(profile && profile.defaultProfile);
    problems.replaceChildren();
    if (profile) inputs.name.focus();
  }
  cancel.addEventListener('click', () => edit(null));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = Object.fromEntries([['name'], ...CAPS].map(([key]) => [key, inputs[key].value.trim() || null]));
    body.containerDefaults = perContainer(inputs, 'containerDefaults');
    body.containerMax = perContainer(inputs, 'containerMax');
    body.entitledUsers = shared.value
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    body.podSecurity = level.value;
    body.allowKinds = editing ? editing.allowKinds : []; // an admin's, kept as they are
    body.defaultProfile = isDefault.box.checked;
    try {
      if (editing) await api('PUT', `/profiles/${editing.id}`, { body, headers: { 'If-Match': editingTag } });
      else await api('POST', '/profiles', { body });
      say(editing ? 'Profile saved.' : 'Profile created.');
      refresh();
    } catch (error) {
      problems.replaceChildren(
        error.status === 412
          ? el('p', { class: 'error' }, 'Someone changed this profile meanwhile: reload to see it.')
          : problemList(error),
      );
    }
  });

  async function act(profile, change) {
    const { etag } = await api('GET', `/profiles/${profile.id}`);
    await change(etag);
    refresh();
  }

  const instances = await everything('/instances');
  const rows = profiles.map((p) =>
    el(
      'li',
      { class: 'card' },
      el(
        'div',
        { class: 'top' },
        el(
          'h3',
          {},
          p.name || '(unnamed)',
          ' ',
          p.defaultProfile ? el('span', { class: 'badge fits' }, 'default') : null,
        ),
      ),
      el('p', { class: 'needs' }, caps(p.limits)),
      usageBars(p),
      monthly(p.usage) ? el('p', { class: 'meta cost' }, `costs ${monthly(p.usage)}`) : null,
      instances.some((i) => i.profile === p.id)
        ? el(
            'details',
            {},
            el('summary', {}, `${p.usage.instances} ${p.usage.instances === 1 ? 'instance' : 'instances'}`),
            instanceTable(instances.filter((i) => i.profile === p.id)),
          )
        : null,
      admin || p.owner !== session.user.username ? el('p', { class: 'meta' }, `owner ${p.owner}`) : null,
      p.entitledUsers.length ? el('p', { class: 'meta' }, `shared with ${p.entitledUsers.join(', ')}`) : null,
      el(
        'p',
        { class: 'meta' },
        `pod security: ${p.podSecurity}${p.allowKinds.length ? `; also allows ${p.allowKinds.join(', ')}` : ''}`,
      ),
      el(
        'div',
        { class: 'actions' },
        p.can.change
          ? el(
              'button',
              {
                type: 'button',
                class: 'quiet',
                'aria-label': `Edit ${p.name || 'profile'}`,
                onclick: async () => {
                  const { data, etag } = await api('GET', `/profiles/${p.id}`);
                  edit(data, etag);
                },
              },
              'Edit',
            )
          : null,
        p.defaultProfile || !p.can.change
          ? null
          : el(
              'button',
              {
                type: 'button',
                class: 'quiet',
                'aria-label': `Make ${p.name || 'profile'} the default`,
                onclick: () =>
                  act(p, (etag) =>
                    api('PATCH', `/profiles/${p.id}`, {
                      body: { defaultProfile: true },
                      headers: { 'If-Match': etag },
                    }),
                  ),
              },
              'Make default',
            ),
        el('a', { class: 'button quiet', href: `#/?profile=${p.id}&fitsOnly=true` }, 'What fits'),
      ),
    ),
  );
  return el(
    'section',
    {},
    el('h1', {}, 'Profiles'),
    rows.length
      ? el('ul', { class: 'cards', 'aria-label': 'Profiles' }, rows)
      : el('p', { class: 'note' }, 'No profile yet.'),
    form,
  );
}

/** A profile's usage against each cap it sets: a bar per resource. */
function usageBars(p) {
  const capped = RESOURCES.filter((name) => p.limits[RESOURCE_KEYS[name]] !== null);
  if (!capped.length) return null;
  return el(
    'ul',
    { class: 'usage', 'aria-label': `Usage of ${p.name || 'the profile'}` },
    capped.map((name) => {
      const key = RESOURCE_KEYS[name];
      const used = p.usage[key];
      const cap = p.limits[key];
      const show = AMOUNT[name];
      return el(
        'li',
        {},
        el('span', {}, `${name}: ${show(used)} of ${show(cap)}`),
        el('meter', {
          min: '0',
          max: String(Math.max(cap, 1)),
          value: String(Math.min(used, cap)),
          high: String(cap * 0.9),
          'aria-label': `${name} used`,
        }),
      );
    }),
  );
}

export async function usersPage() {
  const users = await everything('/users');
  const username = el('input', { name: 'username', autocomplete: 'off', minlength: '3', maxlength: '64' });
  const password = el('input', { name: 'password', type: 'password', autocomplete: 'new-password', minlength: '8' });
  const role = select(
    [
      ['viewer', 'viewer: reads'],
      ['member', 'member: reads, creates, changes its own'],
      ['admin', 'admin: everything'],
    ],
    'member',
  );
  const problems = el('div', { 'aria-live': 'polite' });
  const form = el(
    'form',
    { class: 'grid2' },
    el('h2', { class: 'wide' }, 'New user'),
    field('Username', username),
    field('Password', password),
    field('Role', role),
    el('div', { class: 'wide actions' }, el('button', { type: 'submit' }, 'Create user')),
    el('div', { class: 'wide' }, problems),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await api('POST', '/users', { body: { username: username.value, password: password.value, role: role.value } });
      say(`User ${username.value} created.`);
      refresh();
    } catch (error) {
      problems.replaceChildren(problemList(error));
    }
  });
  return el(
    'section',
    {},
    el('h1', {}, 'Users'),
    el(
      'div',
      { class: 'scroll' },
      el(
        'table',
        { 'aria-label': 'Users' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Username', 'Role', 'Since'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el(
          'tbody',
          {},
          users.map((u) =>
            el(
              'tr',
              {},
              el('td', {}, u.username),
              el('td', {}, u.role + (u.disabled ? ' (disabled)' : '')),
              el('td', {}, when(u.createdAt)),
            ),
          ),
        ),
      ),
    ),
    form,
  );
}
