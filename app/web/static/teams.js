/* Teams (`#/teams`): the caller's teams (an admin's: every team), each with its members and their
   roles (managed where `can.manage` allows), the profiles it owns with what each costs a month and
   what their caps would, and its instances; a form to create one where the service says the
   caller may (`can.createTeams` of `/users/me`). */
import { api, everything } from './api.js';
import { button, el, field, problemList, refresh, row, say, select, table } from './dom.js';
import { may } from './session.js';
import { needs, when } from './units.js';

const ABOUT =
  'A team owns profiles, blueprints and instances: its maintainers and members act on them as their owner, its ' +
  'viewers read them. Maintainers give and take roles.';
const ROLES = { maintainer: 'maintainer', member: 'member', viewer: 'viewer' };

/** A call that changes the team, then the page again; what the service refuses said in `out`. */
async function changed(out, call, done) {
  try {
    await call();
    say(done);
    refresh();
  } catch (error) {
    out.replaceChildren(problemList(error));
  }
}

function membersTable(team, out) {
  const path = (m) => `/teams/${encodeURIComponent(team.name)}/members/${encodeURIComponent(m.username)}`;
  const role = (m) => {
    if (!team.can.manage) return m.role;
    const chosen = select(ROLES, m.role, { 'aria-label': `Role of ${m.username} in ${team.name}` });
    chosen.addEventListener('change', () =>
      changed(out, () => api('PUT', path(m), { body: { role: chosen.value } }), `${m.username} is a ${chosen.value}.`),
    );
    return chosen;
  };
  const remove = (m) =>
    button('Remove', () => changed(out, () => api('DELETE', path(m)), `${m.username} is no longer in ${team.name}.`), {
      'aria-label': `Remove ${m.username} from ${team.name}`,
    });
  const rows = team.members.map((m) =>
    row(el('th', { scope: 'row' }, m.username), role(m), m.origin, team.can.manage ? remove(m) : ''),
  );
  return table(`Members of ${team.name}`, ['Member', 'Role', 'From', ''], rows);
}

function addMemberForm(team, out) {
  const username = el('input', { name: 'username', autocomplete: 'off', required: '' });
  const role = select(ROLES, 'member', { name: 'role' });
  const form = el(
    'form',
    { class: 'inline', 'aria-label': `Add a member to ${team.name}` },
    field('Username', username),
    field('Role', role),
    el('button', { type: 'submit' }, 'Add'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const path = `/teams/${encodeURIComponent(team.name)}/members/${encodeURIComponent(username.value.trim())}`;
    changed(
      out,
      () => api('PUT', path, { body: { role: role.value } }),
      `${username.value.trim()} is a ${role.value}.`,
    );
  });
  return form;
}

/** The team's profiles and what each costs, or why they cannot be shown to the caller. */
async function spendView(team) {
  const cents = (value) => (value === null ? '—' : value.toFixed(2));
  try {
    const { data } = await api('GET', `/teams/${encodeURIComponent(team.name)}/spend?limit=200`);
    const total =
      data.monthly === null
        ? 'Not priced: the operator set no prices.'
        : `${cents(data.monthly)} ${data.currency} a month`;
    const rows = data.profiles.map((p) =>
      row(el('th', { scope: 'row' }, p.name), cents(p.monthly), cents(p.capMonthly)),
    );
    return data.profiles.length
      ? table(`Profiles of ${team.name}`, ['Profile', 'A month', 'Its caps would'], rows, { caption: total })
      : el('p', { class: 'note' }, 'The team owns no profile.');
  } catch (error) {
    return problemList(error);
  }
}

async function teamCard(team) {
  const out = el('div', { 'aria-live': 'polite' });
  const [spend, instances] = await Promise.all([
    spendView(team),
    everything(`/instances?owner=${encodeURIComponent(`team:${team.name}`)}`),
  ]);
  const running = instances.length
    ? table(
        `Instances of ${team.name}`,
        ['Instance', 'Rev', 'Needs', 'Since'],
        instances.map((i) =>
          row(el('th', { scope: 'row' }, i.name), String(i.rev), needs(i.requirements), when(i.createdAt)),
        ),
      )
    : el('p', { class: 'note' }, 'The team owns no instance.');
  return el(
    'li',
    { class: 'card', 'aria-label': team.name },
    el('h3', {}, team.name),
    el(
      'p',
      { class: 'meta' },
      [team.description, `your role: ${team.role || 'none (an admin)'}`].filter(Boolean).join(' · '),
    ),
    el('h4', {}, 'Members'),
    membersTable(team, out),
    team.can.manage ? addMemberForm(team, out) : null,
    out,
    el('h4', {}, 'Profiles and what they cost'),
    spend,
    el('h4', {}, 'Instances'),
    running,
  );
}

function createForm() {
  const name = el('input', { name: 'name', autocomplete: 'off', required: '', placeholder: 'payments' });
  const out = el('div', { 'aria-live': 'polite' });
  const form = el(
    'form',
    { class: 'inline', 'aria-label': 'Create a team' },
    field('New team', name, 'Lowercase letters, digits and hyphens; you maintain it'),
    el('button', { type: 'submit' }, 'Create'),
    out,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    changed(
      out,
      () => api('POST', '/teams', { body: { name: name.value.trim() } }),
      `Team ${name.value.trim()} created.`,
    );
  });
  return form;
}

export async function teamsPage() {
  const teams = await everything('/teams');
  const cards = await Promise.all(teams.map(teamCard));
  const shown = teams.length
    ? el('ul', { class: 'cards whole', 'aria-label': 'Teams' }, cards)
    : el('p', { class: 'note' }, 'You are in no team: a maintainer of one adds you.');
  return el(
    'section',
    {},
    el('h1', {}, 'Teams'),
    el('p', { class: 'note' }, ABOUT),
    may('createTeams') ? createForm() : null,
    shown,
  );
}
