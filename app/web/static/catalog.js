/* The catalog (`#/`): blueprints newest first, search and filters kept in the URL, a fit badge on
   each entry, and "More". */
import { api, FIT_FETCHES, formats, ourProfiles, PAGE } from './api.js';
import { checkbox, el, field, linkButton, refresh, say, select, tagList } from './dom.js';
import { list } from './drafts.js';
import { defaultsApplied, needs } from './units.js';

/** A fit as a badge; where containers took the profile's defaults (`limits`), it says so. */
export function fitBadge(fit, limits) {
  if (!fit) return el('span', { class: 'badge unknown' }, 'fit unknown');
  if (fit.fits === null) {
    const measured = fit.resources && Object.values(fit.resources).some((r) => r.required !== null);
    return el('span', { class: 'badge unknown' }, measured ? 'unknown until its variables are set' : 'not measured');
  }
  const badge = el('span', { class: `badge ${fit.fits ? 'fits' : 'no'}` }, fit.fits ? 'fits' : 'does not fit');
  const applied = limits ? defaultsApplied(fit, limits) : null;
  return applied ? el('span', { class: 'verdict' }, badge, el('span', { class: 'note' }, ` ${applied}`)) : badge;
}

export function starButton(bp) {
  const button = el(
    'button',
    {
      type: 'button',
      class: 'star',
      'aria-pressed': String(bp.starred),
      'aria-label': `Star ${bp.name || 'this blueprint'}`,
    },
    `★ ${bp.stars}`,
  );
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await api(bp.starred ? 'DELETE' : 'PUT', `/blueprints/${bp.id}/star`);
      bp.stars += bp.starred ? -1 : 1;
      bp.starred = !bp.starred;
      button.setAttribute('aria-pressed', String(bp.starred));
      button.textContent = `★ ${bp.stars}`;
    } catch (error) {
      say(error.message);
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

/** Runs `jobs` (functions returning promises) a few at a time. */
async function inTurns(jobs, width = FIT_FETCHES) {
  const queue = [...jobs];
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (queue.length) await queue.shift()();
    }),
  );
}

const STATES = [
  ['', 'Active and inactive'],
  ['false', 'Active only'],
  ['true', 'Inactive only'],
];

function card(bp, profile, fitsOnly) {
  const badge = el('span', { class: 'fit' });
  const facts = [bp.blueprintType || 'no type', bp.owner, bp.entitlementType, bp.inactive ? 'inactive' : null];
  const description =
    bp.description && bp.description.length > 200 ? `${bp.description.slice(0, 200)}…` : bp.description;
  const title = el(
    'h3',
    {},
    el('a', { href: `#/blueprints/${bp.id}` }, bp.name || '(unnamed)'),
    bp.version ? ` ${bp.version}` : '',
  );
  const node = el(
    'li',
    { class: 'card' },
    el('div', { class: 'top' }, title, starButton(bp)),
    el('p', { class: 'meta' }, facts.filter(Boolean).join(' · ')),
    sourceOf(bp),
    description ? el('p', { class: 'desc' }, description) : null,
    tagList(bp.tags),
    el('div', { class: 'row' }, el('p', { class: 'needs' }, needs(bp.requirements)), badge),
  );
  let load = null;
  if (profile && fitsOnly) badge.append(fitBadge({ fits: true }));
  else if (profile)
    load = async () =>
      badge.append(fitBadge((await api('GET', `/blueprints/${bp.id}/fit?profile=${profile.id}`)).data, profile.limits));
  return { node, load };
}

/** Where a blueprint came from: two of one name (Redis from two catalogs) told apart by it. */
function sourceOf(bp) {
  if (!bp.source) return null;
  const key = bp.source.key === bp.name ? '' : `: ${bp.source.key}`;
  return el('p', { class: 'meta source' }, `from ${bp.source.name} (${bp.source.format}${key})`);
}

/** The search form's controls, each set from the URL's `params`; the profile fitted to is the
    caller's default unless the URL names another, or none (`profile=`). */
function filterControls(params, profiles) {
  const controls = { defaultId: (profiles.find((p) => p.defaultProfile) || {}).id || '' };
  const value = (name) => params.get(name) || '';
  controls.q = el('input', {
    type: 'search',
    name: 'q',
    value: value('q'),
    placeholder: 'Words that start words of names, descriptions, tags',
  });
  controls.type = el('input', {
    name: 'blueprintType',
    value: value('blueprintType'),
    list: 'types',
    placeholder: 'compose, kubernetes…',
  });
  controls.tags = el('input', { name: 'tag', value: params.getAll('tag').join(', '), placeholder: 'web, db' });
  controls.inactive = select(STATES, value('inactive'));
  controls.chosenProfile = params.has('profile') ? params.get('profile') : controls.defaultId;
  const named = (p) => `${p.name || '(unnamed)'}${p.defaultProfile ? ' (default)' : ''}`;
  controls.profile = select([['', 'No profile'], ...profiles.map((p) => [p.id, named(p)])], controls.chosenProfile);
  controls.starred = checkbox('Starred by me', params.get('starred') === 'true');
  controls.fitsOnly = checkbox('Only those that fit the profile', params.get('fitsOnly') === 'true');
  return controls;
}

/** The search form: Search puts what it holds in the URL, which shows the catalog again. */
async function filterForm(c) {
  const types = (await formats()).blueprintTypes.flatMap((t) => t.aliases).map((t) => el('option', { value: t }));
  const form = el(
    'form',
    { class: 'filters', role: 'search' },
    el('div', { class: 'wide' }, field('Search', c.q)),
    [field('Type', c.type), field('Tags (all of them)', c.tags), field('State', c.inactive)],
    field('Profile to fit', c.profile),
    c.starred.node,
    c.fitsOnly.node,
    el('datalist', { id: 'types' }, types),
    el('div', { class: 'actions' }, el('button', { type: 'submit' }, 'Search'), linkButton('Clear', '#/')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const hash = `#/?${searched(c)}`;
    if (location.hash === hash) refresh();
    else location.hash = hash;
  });
  for (const control of [c.inactive, c.profile, c.starred.box, c.fitsOnly.box])
    control.addEventListener('change', () => form.requestSubmit());
  return form;
}

/** The URL's query for what the search form holds. */
function searched(c) {
  const chosen = new URLSearchParams();
  if (c.q.value.trim()) chosen.set('q', c.q.value.trim());
  if (c.type.value.trim()) chosen.set('blueprintType', c.type.value.trim());
  for (const tag of list(c.tags.value.toLowerCase())) chosen.append('tag', tag);
  if (c.starred.box.checked) chosen.set('starred', 'true');
  if (c.inactive.value) chosen.set('inactive', c.inactive.value);
  if (c.profile.value !== c.defaultId) chosen.set('profile', c.profile.value);
  if (c.profile.value && c.fitsOnly.box.checked) chosen.set('fitsOnly', 'true');
  return chosen;
}

/** The API's query for the URL's `params`, and whether only those fitting the profile are asked. */
function listQuery(params, chosenProfile) {
  const query = new URLSearchParams({ limit: String(PAGE) });
  for (const name of ['q', 'blueprintType', 'starred', 'inactive'])
    if (params.get(name)) query.set(name, params.get(name));
  for (const tag of params.getAll('tag')) query.append('tag', tag);
  const onlyFitting = Boolean(chosenProfile && params.get('fitsOnly') === 'true');
  if (onlyFitting) query.set('fitsProfile', chosenProfile);
  return { query, onlyFitting };
}

export async function catalog(_, params) {
  const profiles = await ourProfiles();
  const controls = filterControls(params, profiles);
  const form = await filterForm(controls);
  const { chosenProfile } = controls;
  const { query, onlyFitting } = listQuery(params, chosenProfile);
  const chosen = chosenProfile
    ? profiles.find((p) => p.id === chosenProfile) || { id: chosenProfile, limits: null }
    : null;
  const shown = { list: el('ul', { class: 'cards', 'aria-label': 'Blueprints' }), count: 0 };
  shown.more = el('button', { type: 'button', class: 'quiet more', hidden: true }, 'More');
  shown.counted = el('p', { class: 'note', 'aria-live': 'polite' });
  await loadPage(shown, query, (bp) => card(bp, chosen, onlyFitting), null);
  return el('section', {}, el('h1', {}, 'Catalog'), form, shown.counted, shown.list, shown.more);
}

/** A page of the list after `cursor` added to what is `shown`, then each card's fit, a few at a time. */
async function loadPage(shown, query, cardOf, cursor) {
  const page = new URLSearchParams(query);
  if (cursor) page.set('cursor', cursor);
  const { data } = await api('GET', `/blueprints?${page}`);
  const cards = data.items.map(cardOf);
  shown.list.append(...cards.map((c) => c.node));
  shown.count += data.items.length;
  shown.counted.textContent = shown.count
    ? `${shown.count} shown${data.next ? ', more below' : ''}`
    : 'No blueprint matches.';
  shown.more.hidden = !data.next;
  shown.more.onclick = async () => {
    shown.more.disabled = true;
    await loadPage(shown, query, cardOf, data.next);
    shown.more.disabled = false;
  };
  performance.mark('catalog-ready');
  inTurns(cards.map((c) => c.load).filter(Boolean)).then(
    () => performance.mark('catalog-fitted'),
    (error) => say(error.message),
  );
}
