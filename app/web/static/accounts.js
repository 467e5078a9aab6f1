/* Profiles (`#/profiles`) and, for admins, users (`#/users`). */
import { api, everything } from './api.js';
import { button, checkbox, el, field, linkButton, problemList, refresh, row, say, select, table } from './dom.js';
import { list } from './drafts.js';
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
const ABOUT =
  "A team's budget: caps on memory, CPU, containers and storage, what a container that declares nothing " +
  'counts, and who may spend from it. An instance is admitted only where it fits what is left.';
const NOTE =
  'What a container that declares no limit counts, and is given in a render; a container over the most does not fit.';
// the Pod Security Standards' levels a profile holds its renders and instances to
const LEVELS = { baseline: 'Baseline', restricted: 'Restricted', privileged: 'Privileged (admins)' };
const LEVEL_HELP =
  "What its instances may run, on a Docker host and on a cluster: baseline refuses privileged containers, the host's " +
  'namespaces and paths; restricted also root, privilege escalation and capabilities.';
const ROLES = {
  viewer: 'viewer: reads',
  member: 'member: reads, creates, changes its own',
  admin: 'admin: everything',
};

/** `{memory, cpu}` of a profile's defaults (or maximum) from the form, null when both are empty. */
function perContainer(inputs, which) {
  const given = Object.fromEntries(
    PER_CONTAINER.filter(([f]) => f === which).map(([, member]) => [
      member,
      inputs[`${which}.${member}`].value.trim() || null,
    ]),
  );
  return Object.values(given).some((v) => v !== null) ? given : null;
}

/** The form that creates a profile or edits one (`edit(profile, etag)`; `edit(null)`: a new one). */
function profileForm() {
  const inputs = Object.fromEntries(
    [['name', 'Name', ''], ...CAPS].map(([key, , hint]) => [key, el('input', { name: key, placeholder: hint })]),
  );
  for (const [f, member, , hint] of PER_CONTAINER)
    inputs[`${f}.${member}`] = el('input', { name: `${f}.${member}`, placeholder: hint });
  const shared = el('input', { name: 'entitledUsers', placeholder: 'bob, carol', autocomplete: 'off' });
  const level = select(LEVELS, 'baseline', { name: 'podSecurity' });
  const isDefault = checkbox('The default profile', false);
  const parts = { inputs, shared, level, isDefault, title: el('h2', { class: 'wide' }, 'New profile') };
  parts.problems = el('div', { 'aria-live': 'polite' });
  parts.submit = el('button', { type: 'submit' }, 'Create');
  parts.cancel = el('button', { type: 'button', class: 'quiet', hidden: true }, 'Cancel');
  const sharing = 'They may read it and fit to it; only you and admins change it.';
  parts.form = el(
    'form',
    { class: 'grid2' },
    parts.title,
    el('div', { class: 'wide' }, field('Name', inputs.name)),
    CAPS.map(([key, label]) => field(label, inputs[key])),
    el('p', { class: 'wide note' }, NOTE),
    PER_CONTAINER.map(([f, member, label]) => field(label, inputs[`${f}.${member}`])),
    el('div', { class: 'wide' }, field('Shared with (usernames)', shared, sharing)),
    el('div', { class: 'wide' }, field('Pod security', level, LEVEL_HELP)),
    isDefault.node,
    el('div', { class: 'wide actions' }, parts.submit, parts.cancel),
    el('div', { class: 'wide' }, parts.problems),
  );
  return parts;
}

/** Fills the form with `profile` (null: empty, for a new one). */
function fill(parts, profile) {
  parts.title.textContent = profile ? `Edit ${profile.name || '(unnamed)'}` : 'New profile';
  parts.submit.textContent = profile ? 'Save' : 'Create';
  parts.cancel.hidden = !profile;
  for (const key of Object.keys(parts.inputs)) {
    const [f, member] = key.split('.');
    parts.inputs[key].value = (profile && (member ? (profile[f] || {})[member] : profile[key])) || '';
  }
  parts.shared.value = profile ? (profile.entitledUsers || []).join(', ') : '';
  parts.level.value = profile ? profile.podSecurity : 'baseline';
  parts.isDefault.box.checked = Boolean(profile && profile.defaultProfile);
  parts.problems.replaceChildren();
  if (profile) parts.inputs.name.focus();
}

/** The body the form sends; `editing` keeps what the form does not show (an admin's `allowKinds`). */
function profileBody(parts, editing) {
  const { inputs } = parts;
  const body = Object.fromEntries([['name'], ...CAPS].map(([key]) => [key, inputs[key].value.trim() || null]));
  body.containerDefaults = perContainer(inputs, 'containerDefaults');
  body.containerMax = perContainer(inputs, 'containerMax');
  body.entitledUsers = list(parts.shared.value);
  body.podSecurity = parts.level.value;
  body.allowKinds = editing ? editing.allowKinds : [];
  body.defaultProfile = parts.isDefault.box.checked;
  return body;
}

export async function profilesPage() {
  const profiles = await everything('/profiles');
  const parts = profileForm();
  let editing = null;
  let editingTag = null;
  const edit = (profile, tag) => {
    [editing, editingTag] = [profile, tag];
    fill(parts, profile);
  };
  parts.cancel.addEventListener('click', () => edit(null));
  parts.form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = profileBody(parts, editing);
    try {
      if (editing) await api('PUT', `/profiles/${editing.id}`, { body, headers: { 'If-Match': editingTag } });
      else await api('POST', '/profiles', { body });
      say(editing ? 'Profile saved.' : 'Profile created.');
      refresh();
    } catch (error) {
      const moved = el('p', { class: 'error' }, 'Someone changed this profile meanwhile: reload to see it.');
      parts.problems.replaceChildren(error.status === 412 ? moved : problemList(error));
    }
  });
  const instances = await everything('/instances');
  const cards = profiles.map((p) => profileCard(p, instances, edit));
  const shown = cards.length
    ? el('ul', { class: 'cards', 'aria-label': 'Profiles' }, cards)
    : el('p', { class: 'note' }, 'No profile yet.');
  return el('section', {}, el('h1', {}, 'Profiles'), el('p', { class: 'note' }, ABOUT), shown, parts.form);
}

/** A profile as a card: its caps, usage, cost, instances, who owns and shares it, its actions. */
function profileCard(p, instances, edit) {
  const own = instances.filter((i) => i.profile === p.id);
  const counted = `${p.usage.instances} ${p.usage.instances === 1 ? 'instance' : 'instances'}`;
  const kinds = p.allowKinds.length ? `; also allows ${p.allowKinds.join(', ')}` : '';
  const badge = p.defaultProfile ? el('span', { class: 'badge fits' }, 'default') : null;
  return el(
    'li',
    { class: 'card' },
    el('div', { class: 'top' }, el('h3', {}, p.name || '(unnamed)', ' ', badge)),
    el('p', { class: 'needs' }, caps(p.limits)),
    usageBars(p),
    monthly(p.usage) ? el('p', { class: 'meta cost' }, `costs ${monthly(p.usage)}`) : null,
    own.length ? el('details', {}, el('summary', {}, counted), instanceTable(own)) : null,
    session.user.role === 'admin' || p.owner !== session.user.username
      ? el('p', { class: 'meta' }, `owner ${p.owner}`)
      : null,
    p.entitledUsers.length ? el('p', { class: 'meta' }, `shared with ${p.entitledUsers.join(', ')}`) : null,
    el('p', { class: 'meta' }, `pod security: ${p.podSecurity}${kinds}`),
    el('div', { class: 'actions' }, profileActions(p, edit)),
  );
}

/** Edit, Make default (where `can` allows) and What fits. */
function profileActions(p, edit) {
  const named = p.name || 'profile';
  const editing = async () => {
    const { data, etag } = await api('GET', `/profiles/${p.id}`);
    edit(data, etag);
  };
  const makeDefault = async () => {
    const { etag } = await api('GET', `/profiles/${p.id}`);
    await api('PATCH', `/profiles/${p.id}`, { body: { defaultProfile: true }, headers: { 'If-Match': etag } });
    refresh();
  };
  return [
    p.can.change ? button('Edit', editing, { 'aria-label': `Edit ${named}` }) : null,
    p.defaultProfile || !p.can.change
      ? null
      : button('Make default', makeDefault, { 'aria-label': `Make ${named} the default` }),
    linkButton('What fits', `#/?profile=${p.id}&fitsOnly=true`),
  ];
}

/** A profile's usage against each cap it sets: a bar per resource. */
function usageBars(p) {
  const capped = RESOURCES.filter((name) => p.limits[RESOURCE_KEYS[name]] !== null);
  if (!capped.length) return null;
  const bar = (name) => {
    const key = RESOURCE_KEYS[name];
    const [used, cap, show] = [p.usage[key], p.limits[key], AMOUNT[name]];
    const meter = el('meter', {
      min: '0',
      max: String(Math.max(cap, 1)),
      value: String(Math.min(used, cap)),
      high: String(cap * 0.9),
      'aria-label': `${name} used`,
    });
    return el('li', {}, el('span', {}, `${name}: ${show(used)} of ${show(cap)}`), meter);
  };
  return el('ul', { class: 'usage', 'aria-label': `Usage of ${p.name || 'the profile'}` }, capped.map(bar));
}

export async function usersPage() {
  const users = await everything('/users');
  const username = el('input', { name: 'username', autocomplete: 'off', minlength: '3', maxlength: '64' });
  const password = el('input', { name: 'password', type: 'password', autocomplete: 'new-password', minlength: '8' });
  const role = select(ROLES, 'member');
  const problems = el('div', { 'aria-live': 'polite' });
  const form = el(
    'form',
    { class: 'grid2' },
    el('h2', { class: 'wide' }, 'New user'),
    [field('Username', username), field('Password', password), field('Role', role)],
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
  const rows = users.map((u) => row(u.username, u.role + (u.disabled ? ' (disabled)' : ''), when(u.createdAt)));
  return el('section', {}, el('h1', {}, 'Users'), table('Users', ['Username', 'Role', 'Since'], rows), form);
}
