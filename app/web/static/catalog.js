/* The catalog (`#/`): blueprints newest first, search and filters kept in the URL, a fit badge on
   each entry, and "More". */
import { api, everything, FIT_FETCHES, formats, PAGE } from './api.js';
import { checkbox, el, field, refresh, say, select } from './dom.js';
import { myProfiles } from './session.js';
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

function card(bp, profile, fitsOnly) {
  const badge = el('span', { class: 'fit' });
  const node = el(
    'li',
    { class: 'card' },
    el(
      'div',
      { class: 'top' },
      el(
        'h3',
        {},
        el('a', { href: `#/blueprints/${bp.id}` }, bp.name || '(unnamed)'),
        bp.version ? ` ${bp.version}` : '',
      ),
      starButton(bp),
    ),
    el(
      'p',
      { class: 'meta' },
      [bp.blueprintType || 'no type', bp.owner, bp.entitlementType, bp.inactive ? 'inactive' : null]
        .filter(Boolean)
        .join(' · '),
    ),
    // two blueprints of one name (Redis from two catalogs) told apart by where they came from
    bp.source
      ? el(
          'p',
          { class: 'meta source' },
          `from ${bp.source.name} (${bp.source.format}${bp.source.key === bp.name ? '' : `: ${bp.source.key}`})`,
        )
      : null,
    bp.description
      ? el('p', { class: 'desc' }, bp.description.length > 200 ? `${bp.description.slice(0, 200)}…` : bp.description)
      : null,
    bp.tags && bp.tags.length
      ? el(
          'ul',
          { class: 'tags', 'aria-label': 'Tags' },
          bp.tags.map((tag) => el('li', {}, tag)),
        )
      : null,
    el('div', { class: 'row' }, el('p', { class: 'needs' }, needs(bp.requirements)), badge),
  );
  let load = null;
  if (profile && fitsOnly) badge.append(fitBadge({ fits: true }));
  else if (profile)
    load = async () =>
      badge.append(fitBadge((await api('GET', `/blueprints/${bp.id}/fit?profile=${profile.id}`)).data, profile.limits));
  return { node, load };
}

export async function catalog(_, params) {
  const profiles = await everything(myProfiles());
  const q = el('input', {
    type: 'search',
    name: 'q',
    value: params.get('q') || '',
    placeholder: 'Words that start words of names, descriptions, tags',
  });
  const type = el('input', {
    name: 'blueprintType',
    value: params.get('blueprintType') || '',
    list: 'types',
    placeholder: 'compose, kubernetes…',
  });
  const tags = el('input', { name: 'tag', value: params.getAll('tag').join(', '), placeholder: 'web, db' });
  const inactive = select(
    [
      ['', 'Active and inactive'],
      ['false', 'Active only'],
      ['true', 'Inactive only'],
    ],
    params.get('inactive') || '',
  );
  // fitted to the caller's default profile unless the URL names another, or none (`profile=`)
  const defaultId = (profiles.find((p) => p.defaultProfile) || {}).id || '';
  const chosenProfile = params.has('profile') ? params.get('profile') : defaultId;
  const profile = select(
    [
      ['', 'No profile'],
      ...profiles.map((p) => [p.id, `${p.name || '(unnamed)'}${p.defaultProfile ? ' (default)' : ''}`]),
    ],
    chosenProfile,
  );
  const starred = checkbox('Starred by me', params.get('starred') === 'true');
  const fitsOnly = checkbox('Only those that fit the profile', params.get('fitsOnly') === 'true');
  const form = el(
    'form',
    { class: 'filters', role: 'search' },
    el('div', { class: 'wide' }, field('Search', q)),
    field('Type', type),
    field('Tags (all of them)', tags),
    field('State', inactive),
    field('Profile to fit', profile),
    starred.node,
    fitsOnly.node,
    el(
      'datalist',
      { id: 'types' },
      (await formats()).blueprintTypes.flatMap((t) => t.aliases).map((t) => el('option', { value: t })),
    ),
    el(
      'div',
      { class: 'actions' },
      el('button', { type: 'submit' }, 'Search'),
      el('a', { class: 'button quiet', href: '#/' }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = new URLSearchParams();
    if (q.value.trim()) chosen.set('q', q.value.trim());
    if (type.value.trim()) chosen.set('blueprintType', type.value.trim());
    for (const tag of tags.value
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean))
      chosen.append('tag', tag);
    if (starred.box.checked) chosen.set('starred', 'true');
    if (inactive.value) chosen.set('inactive', inactive.value);
    if (profile.value !== defaultId) chosen.set('profile', profile.value);
    if (profile.value && fitsOnly.box.checked) chosen.set('fitsOnly', 'true');
    const hash = `#/?${chosen}`;
    if (location.hash === hash) refresh();
    else location.hash = hash;
  });
  for (const control of [inactive, profile, starred.box, fitsOnly.box])
    control.addEventListener('change', () => form.requestSubmit());

  const query = new URLSearchParams({ limit: String(PAGE) });
  for (const name of ['q', 'blueprintType', 'starred', 'inactive'])
    if (params.get(name)) query.set(name, params.get(name));
  for (const tag of params.getAll('tag')) query.append('tag', tag);
  const onlyFitting = Boolean(chosenProfile && params.get('fitsOnly') === 'true');
  const chosen = chosenProfile
    ? profiles.find((p) => p.id === chosenProfile) || { id: chosenProfile, limits: null }
    : null;
  if (onlyFitting) query.set('fitsProfile', chosenProfile);

  const list = el('ul', { class: 'cards', 'aria-label': 'Blueprints' });
  const more = el('button', { type: 'button', class: 'quiet more', hidden: true }, 'More');
  const count = el('p', { class: 'note', 'aria-live': 'polite' });
  let shown = 0;
  async function load(cursor) {
    const page = new URLSearchParams(query);
    if (cursor) page.set('cursor', cursor);
    const { data } = await api('GET', `/blueprints?${page}`);
    const cards = data.items.map((bp) => card(bp, chosen, onlyFitting));
    list.append(...cards.map((c) => c.node));
    shown += data.items.length;
    count.textContent = shown ? `${shown} shown${data.next ? ', more below' : ''}` : 'No blueprint matches.';
    more.hidden = !data.next;
    more.onclick = async () => {
      more.disabled = true;
      await load(data.next);
      more.disabled = false;
    };
    performance.mark('catalog-ready');
    inTurns(cards.map((c) => c.load).filter(Boolean)).then(
      () => performance.mark('catalog-fitted'),
      (error) => say(error.message),
    );
  }
  await load(null);
  return el('section', {}, el('h1', {}, 'Catalog'), form, count, list, more);
}
