/* The catalog's web page: a client of the public API, nothing more. Each view is a function of the
   URL's hash (`#/path?filters`), so every view can be bookmarked and shared; it fetches what it
   shows with the caller's bearer token. Every text goes into the page through `el` as text nodes,
   never as markup, so a name like `<img onerror=...>` shows as the characters it is. */
'use strict';

const SESSION = 'catalog.session'; // {token, expiresAt, user}: sessionStorage, never a cookie or URL
const PAGE = 50;
const DEBOUNCE_MS = 400;
const FIT_FETCHES = 6; // at once, the browser's connections per host
const RESOURCES = ['memory', 'cpu', 'containers', 'storage'];

let session = JSON.parse(sessionStorage.getItem(SESSION) || 'null');
const main = document.getElementById('main');

// ---- DOM -----------------------------------------------------------------------------------

/** An element with attributes, listeners (`onclick`...) and children (strings become text). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'class') node.className = value;
    else if (typeof value === 'boolean') node[name] = value;
    else node.setAttribute(name, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

let fieldIds = 0;
/** A labelled control: `control` is the input, select or textarea element. */
function field(label, control, help) {
  control.id = control.id || `f${++fieldIds}`;
  return el('div', { class: 'field' }, el('label', { for: control.id }, label), control,
    help ? el('small', { class: 'note' }, help) : null);
}

function checkbox(label, checked, attrs = {}) {
  const box = el('input', { type: 'checkbox', id: `f${++fieldIds}`, checked: Boolean(checked), ...attrs });
  return { box, node: el('div', { class: 'check' }, box, el('label', { for: box.id }, label)) };
}

function select(options, chosen, attrs = {}) {
  return el('select', attrs, options.map(([value, text]) => el('option', { value, selected: value === chosen }, text)));
}

function say(text) {
  const status = document.getElementById('status');
  status.textContent = text;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { status.textContent = ''; }, 4000);
}

/** The lines of `text`, numbered, with `marked` (1-based) highlighted. */
function codeView(text, marked = new Set(), label = 'Definition') {
  const lines = (text || '').replace(/\n$/, '').split('\n');
  return el('ol', { class: 'code', 'aria-label': label },
    lines.map((line, i) => el('li', { class: marked.has(i + 1) ? 'bad' : null }, line)));
}

function diffView(text) {
  if (!text) return el('p', { class: 'note' }, 'The definitions are the same.');
  return el('pre', { class: 'diff', 'aria-label': 'Definition diff' }, text.replace(/\n$/, '').split('\n').map((line) => {
    const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') && !line.startsWith('+++') ? 'add'
      : line.startsWith('-') && !line.startsWith('---') ? 'del' : null;
    return el('span', { class: kind }, line);
  }));
}

// ---- Units ---------------------------------------------------------------------------------

function number(value, digits = 2) {
  return String(Number(value.toFixed(digits)));
}

function bytes(n) {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let value = n;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) { value /= 1024; i += 1; }
  return `${number(value)} ${units[i]}`;
}

function cpus(millis) {
  if (millis === null || millis === undefined) return '—';
  const value = millis / 1000;
  return `${number(value, 3)} ${value <= 1 ? 'CPU' : 'CPUs'}`;
}

function containers(n) {
  return n === null || n === undefined ? '—' : `${n} ${n === 1 ? 'container' : 'containers'}`;
}

const AMOUNT = { memory: bytes, cpu: cpus, containers, storage: bytes };

/** What a blueprint needs, in words: `3 containers, 1.5 GiB, 2 CPUs`; an amount that some
    container leaves undeclared (`unbounded`) is a floor: `at least 512 MiB`, or `memory undeclared`. */
function needs(requirements) {
  if (!requirements) return 'Not measured (no definition of a known type)';
  const amount = (resource, value, show) => {
    const open = requirements.unbounded.some((u) => u.endsWith(`: ${resource}`));
    if (!open) return show(value);
    return value ? `at least ${show(value)}` : `${resource === 'cpu' ? 'CPU' : resource} undeclared`;
  };
  const parts = [containers(requirements.containers), amount('memory', requirements.memoryBytes, bytes), amount('cpu', requirements.cpuMillis, cpus)];
  if (requirements.storageBytes) parts.push(`${bytes(requirements.storageBytes)} storage`);
  return parts.join(', ');
}

function caps(limits) {
  const parts = [];
  if (limits.memoryBytes !== null) parts.push(`${bytes(limits.memoryBytes)} memory`);
  if (limits.cpuMillis !== null) parts.push(cpus(limits.cpuMillis));
  if (limits.containers !== null) parts.push(containers(limits.containers));
  if (limits.storageBytes !== null) parts.push(`${bytes(limits.storageBytes)} storage`);
  return parts.length ? parts.join(', ') : 'No caps';
}

function when(iso) {
  return new Date(iso).toLocaleString();
}

// ---- The API -------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** One call of the API with the bearer token. A 401 (an expired or revoked token) brings the
    sign-in back over the page, then the same call is made again: nothing on the page is lost. */
async function api(method, path, { body, headers = {} } = {}) {
  for (;;) {
    const sent = { Accept: 'application/json', ...headers };
    if (session) sent.Authorization = `Bearer ${session.token}`;
    const init = { method, headers: sent, credentials: 'omit', cache: 'no-store' };
    if (body !== undefined) {
      sent['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    if (response.status === 401) {
      await signIn('Your session has ended. Sign in again to go on where you were.');
      continue;
    }
    const type = response.headers.get('Content-Type') || '';
    const data = response.status === 204 ? null : type.includes('json') ? await response.json() : await response.text();
    if (!response.ok) throw new ApiError(response.status, data);
    return { data, etag: response.headers.get('ETag') };
  }
}

/** Every item of a list, following `next` (for the small lists a form chooses from). */
async function everything(path, most = 1000) {
  const items = [];
  let next = `${path}${path.includes('?') ? '&' : '?'}limit=200`;
  while (next && items.length < most) {
    const { data } = await api('GET', next);
    items.push(...data.items);
    next = data.next ? `${path}${path.includes('?') ? '&' : '?'}limit=200&cursor=${encodeURIComponent(data.next)}` : null;
  }
  return items;
}

/** Problems of a 422 as [place, message] pairs; anything else as one message. */
function problemsOf(error) {
  if (error instanceof ApiError && error.body && error.body.errors) {
    return Object.entries(error.body.errors).flatMap(([place, messages]) => [].concat(messages).map((m) => [place, m]));
  }
  return [[null, error.message]];
}

function problemList(error) {
  return el('ul', { class: 'problems error', role: 'alert' },
    problemsOf(error).map(([place, message]) => el('li', {}, place ? `${place}: ${message}` : message)));
}

// ---- Signing in and out --------------------------------------------------------------------

let pendingSignIn = null;

function basicAuth(username, password) {
  const utf8 = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...utf8))}`;
}

/** Resolves once the user has signed in; every call waiting on a 401 waits on the same one. */
function signIn(reason = '') {
  if (pendingSignIn) return pendingSignIn;
  session = null;
  sessionStorage.removeItem(SESSION);
  const dialog = document.getElementById('sign-in');
  const form = document.getElementById('sign-in-form');
  const error = document.getElementById('sign-in-error');
  document.getElementById('sign-in-reason').textContent = reason;
  error.textContent = '';
  pendingSignIn = new Promise((resolve) => {
    form.onsubmit = async (event) => {
      event.preventDefault();
      error.textContent = '';
      const username = form.elements.username.value;
      const auth = { Authorization: basicAuth(username, form.elements.password.value), Accept: 'application/json' };
      let token;
      let user;
      try {
        const response = await fetch('/tokens', { method: 'POST', headers: auth, credentials: 'omit', cache: 'no-store' });
        if (!response.ok) {
          document.getElementById('sign-in-reason').textContent = '';
          error.textContent = response.status === 401 ? 'Wrong username or password.'
            : response.status === 429 ? 'Too many attempts: wait a moment and try again.' : `Sign-in failed (${response.status}).`;
          return;
        }
        token = await response.json();
        const me = await fetch('/users/me', { headers: { Authorization: `Bearer ${token.token}`, Accept: 'application/json' }, credentials: 'omit' });
        user = await me.json();
      } catch {
        error.textContent = 'The service cannot be reached: try again in a moment.';
        return;
      }
      session = { token: token.token, expiresAt: token.expiresAt, user };
      sessionStorage.setItem(SESSION, JSON.stringify(session));
      form.reset();
      dialog.close();
      pendingSignIn = null;
      showNav();
      resolve();
    };
  });
  dialog.oncancel = (event) => event.preventDefault(); // no page without a user
  if (!dialog.open) dialog.showModal();
  document.getElementById('sign-in-username').focus();
  return pendingSignIn;
}

function showNav() {
  const user = session.user;
  document.getElementById('nav').hidden = false;
  document.getElementById('whoami').textContent = `${user.username} (${user.role})`;
  document.getElementById('nav-users').hidden = user.role !== 'admin';
  document.getElementById('nav-new').hidden = user.role === 'viewer';
  document.getElementById('nav-import').hidden = user.role === 'viewer';
}

async function signOut() {
  try {
    await fetch('/tokens', { method: 'DELETE', headers: { Authorization: `Bearer ${session.token}` }, credentials: 'omit' });
  } finally {
    document.getElementById('nav').hidden = true;
    main.replaceChildren();
    await signIn('Signed out.');
    route();
  }
}

/** The caller's own profiles (an admin lists everyone's otherwise): what a fit is chosen among. */
function myProfiles() {
  return `/profiles?owner=${encodeURIComponent(session.user.username)}`;
}

function canChange(doc) {
  return session.user.role === 'admin' || (session.user.role === 'member' && doc.owner === session.user.username);
}

// ---- Catalog -------------------------------------------------------------------------------

const FILTERS = ['q', 'blueprintType', 'tag', 'starred', 'inactive', 'profile', 'fitsOnly'];

function fitBadge(fit) {
  if (!fit) return el('span', { class: 'badge unknown' }, 'fit unknown');
  if (fit.fits === null) return el('span', { class: 'badge unknown' }, 'not measured');
  return el('span', { class: `badge ${fit.fits ? 'fits' : 'no'}` }, fit.fits ? 'fits' : 'does not fit');
}

function starButton(bp) {
  const button = el('button', { type: 'button', class: 'star', 'aria-pressed': String(bp.starred), 'aria-label': `Star ${bp.name || 'this blueprint'}` }, `★ ${bp.stars}`);
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
  await Promise.all(Array.from({ length: width }, async () => {
    while (queue.length) await queue.shift()();
  }));
}

function card(bp, profile, fitsOnly) {
  const badge = el('span', { class: 'fit' });
  const node = el('li', { class: 'card' },
    el('div', { class: 'top' },
      el('h3', {}, el('a', { href: `#/blueprints/${bp.id}` }, bp.name || '(unnamed)'), bp.version ? ` ${bp.version}` : ''),
      starButton(bp)),
    el('p', { class: 'meta' }, [bp.blueprintType || 'no type', bp.owner, bp.entitlementType, bp.inactive ? 'inactive' : null].filter(Boolean).join(' · ')),
    bp.description ? el('p', { class: 'desc' }, bp.description.length > 200 ? `${bp.description.slice(0, 200)}…` : bp.description) : null,
    bp.tags && bp.tags.length ? el('ul', { class: 'tags', 'aria-label': 'Tags' }, bp.tags.map((tag) => el('li', {}, tag))) : null,
    el('div', { class: 'row' }, el('p', { class: 'needs' }, needs(bp.requirements)), badge));
  let load = null;
  if (profile && fitsOnly) badge.append(fitBadge({ fits: true }));
  else if (profile) load = async () => badge.append(fitBadge((await api('GET', `/blueprints/${bp.id}/fit?profile=${profile}`)).data));
  return { node, load };
}

async function catalog(_, params) {
  const profiles = await everything(myProfiles());
  const q = el('input', { type: 'search', name: 'q', value: params.get('q') || '', placeholder: 'Words that start words of names, descriptions, tags' });
  const type = el('input', { name: 'blueprintType', value: params.get('blueprintType') || '', list: 'types', placeholder: 'compose, kubernetes…' });
  const tags = el('input', { name: 'tag', value: params.getAll('tag').join(', '), placeholder: 'web, db' });
  const inactive = select([['', 'Active and inactive'], ['false', 'Active only'], ['true', 'Inactive only']], params.get('inactive') || '');
  const profile = select([['', 'No profile'], ...profiles.map((p) => [p.id, `${p.name || '(unnamed)'}${p.defaultProfile ? ' (default)' : ''}`])], params.get('profile') || '');
  const starred = checkbox('Starred by me', params.get('starred') === 'true');
  const fitsOnly = checkbox('Only those that fit the profile', params.get('fitsOnly') === 'true');
  const form = el('form', { class: 'filters', role: 'search' },
    el('div', { class: 'wide' }, field('Search', q)),
    field('Type', type), field('Tags (all of them)', tags), field('State', inactive), field('Profile to fit', profile),
    starred.node, fitsOnly.node,
    el('datalist', { id: 'types' }, ['compose', 'docker-compose', 'kubernetes', 'k8s'].map((t) => el('option', { value: t }))),
    el('div', { class: 'actions' }, el('button', { type: 'submit' }, 'Search'), el('a', { class: 'button quiet', href: '#/' }, 'Clear')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = new URLSearchParams();
    if (q.value.trim()) chosen.set('q', q.value.trim());
    if (type.value.trim()) chosen.set('blueprintType', type.value.trim());
    for (const tag of tags.value.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean)) chosen.append('tag', tag);
    if (starred.box.checked) chosen.set('starred', 'true');
    if (inactive.value) chosen.set('inactive', inactive.value);
    if (profile.value) chosen.set('profile', profile.value);
    if (profile.value && fitsOnly.box.checked) chosen.set('fitsOnly', 'true');
    const hash = `#/?${chosen}`;
    if (location.hash === hash) route(); else location.hash = hash;
  });
  for (const control of [inactive, profile, starred.box, fitsOnly.box]) control.addEventListener('change', () => form.requestSubmit());

  const query = new URLSearchParams({ limit: String(PAGE) });
  for (const name of ['q', 'blueprintType', 'starred', 'inactive']) if (params.get(name)) query.set(name, params.get(name));
  for (const tag of params.getAll('tag')) query.append('tag', tag);
  const chosenProfile = params.get('profile');
  const onlyFitting = Boolean(chosenProfile && params.get('fitsOnly') === 'true');
  if (onlyFitting) query.set('fitsProfile', chosenProfile);

  const list = el('ul', { class: 'cards', 'aria-label': 'Blueprints' });
  const more = el('button', { type: 'button', class: 'quiet more', hidden: true }, 'More');
  const count = el('p', { class: 'note', 'aria-live': 'polite' });
  let shown = 0;
  async function load(cursor) {
    const page = new URLSearchParams(query);
    if (cursor) page.set('cursor', cursor);
    const { data } = await api('GET', `/blueprints?${page}`);
    const cards = data.items.map((bp) => card(bp, chosenProfile, onlyFitting));
    list.append(...cards.map((c) => c.node));
    shown += data.items.length;
    count.textContent = shown ? `${shown} shown${data.next ? ', more below' : ''}` : 'No blueprint matches.';
    more.hidden = !data.next;
    more.onclick = async () => { more.disabled = true; await load(data.next); more.disabled = false; };
    performance.mark('catalog-ready');
    inTurns(cards.map((c) => c.load).filter(Boolean)).then(() => performance.mark('catalog-fitted'), (error) => say(error.message));
  }
  await load(null);
  return el('section', {}, el('h1', {}, 'Catalog'), form, count, list, more);
}

// ---- A blueprint ---------------------------------------------------------------------------

const EXPLAIN = {
  unbounded: 'These containers declare no limit or request for that resource: a profile that caps it cannot be shown to hold them, so they do not fit it.',
  unresolved: 'These variables have no value and no default here, and stand in an amount that is measured: set them (Parameters) to measure it.',
};

function requirementsView(requirements) {
  if (!requirements) return el('p', { class: 'note' }, 'Not measured: the definition is not of a known type (compose, kubernetes), or there is none.');
  return el('div', {},
    el('p', { class: 'needs' }, needs(requirements)),
    requirements.unbounded.length ? el('div', {}, el('h3', {}, 'Unbounded'), el('p', { class: 'note' }, EXPLAIN.unbounded),
      el('ul', {}, requirements.unbounded.map((u) => el('li', {}, u)))) : null,
    requirements.unresolved.length ? el('div', {}, el('h3', {}, 'Unresolved'), el('p', { class: 'note' }, EXPLAIN.unresolved),
      el('ul', {}, requirements.unresolved.map((u) => el('li', {}, u)))) : null);
}

function fitTable(fit, caption) {
  if (fit.fits === null) return el('p', { class: 'note' }, 'Not measured, so it cannot be fitted.');
  return el('div', { class: 'scroll' }, el('table', {},
    el('caption', { class: 'note' }, caption),
    el('thead', {}, el('tr', {}, ['Resource', 'Required', 'Cap', 'Headroom', 'Verdict'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, RESOURCES.map((name) => {
      const r = fit.resources[name];
      const show = name === 'containers' ? String : AMOUNT[name]; // the row says what they count
      return el('tr', {}, el('th', { scope: 'row' }, name), el('td', {}, show(r.required)), el('td', {}, r.cap === null ? 'none' : show(r.cap)),
        el('td', {}, r.headroom === null ? '—' : r.headroom < 0 ? `−${show(-r.headroom)}` : show(r.headroom)),
        el('td', {}, el('span', { class: `badge ${r.verdict}` }, r.verdict)));
    }))));
}

async function fitsView(bp) {
  const profiles = await everything(myProfiles());
  if (!profiles.length) return el('p', { class: 'note' }, 'You have no profile yet: ', el('a', { href: '#/profiles' }, 'create one'), ' to see whether this fits.');
  const fits = await Promise.all(profiles.map((p) => api('GET', `/blueprints/${bp.id}/fit?profile=${p.id}`).then((r) => r.data)));
  return el('div', {}, profiles.map((p, i) => el('div', {},
    el('h3', {}, `${p.name || '(unnamed)'} `, fitBadge(fits[i])),
    fitTable(fits[i], `Against ${p.name || 'the profile'}: ${caps(p.limits)}`))));
}

async function download(bp) {
  const response = await fetch(`/blueprints/${bp.id}/yml`, { headers: { Authorization: `Bearer ${session.token}` }, credentials: 'omit' });
  if (!response.ok) { say(`Download failed (${response.status}).`); return; }
  const url = URL.createObjectURL(await response.blob());
  const link = el('a', { href: url, download: `${bp.name || bp.id}.yml` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function historyView(bp, etag) {
  const versions = await everything(`/blueprints/${bp.id}/revisions`, 200);
  const output = el('div', { 'aria-live': 'polite' });
  const rows = versions.map((v, i) => {
    const from = el('input', { type: 'radio', name: 'from', value: String(v.rev), checked: i === 1, 'aria-label': `Compare from revision ${v.rev}` });
    const to = el('input', { type: 'radio', name: 'to', value: String(v.rev), checked: i === 0, 'aria-label': `Compare to revision ${v.rev}` });
    const restore = canChange(bp) && v.rev !== bp.rev
      ? el('button', { type: 'button', class: 'quiet', 'aria-label': `Restore revision ${v.rev}`, onclick: () => restoreTo(bp, v.rev, etag) }, 'Restore') : null;
    return el('tr', {}, el('td', {}, String(v.rev)), el('td', {}, v.updatedBy), el('td', {}, when(v.updatedAt)), el('td', {}, from), el('td', {}, to), el('td', {}, restore));
  });
  const form = el('form', {}, el('div', { class: 'scroll' }, el('table', {},
    el('thead', {}, el('tr', {}, ['Rev', 'By', 'When', 'From', 'To', ''].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows))),
  el('p', {}, el('button', { type: 'submit', disabled: versions.length < 2 }, 'Show the changes')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const a = form.elements.from.value;
    const b = form.elements.to.value;
    output.replaceChildren(await changesView(bp.id, a, b));
  });
  return el('div', {}, form, output);
}

async function changesView(id, from, to) {
  const { data } = await api('GET', `/blueprints/${id}/diff?from=${from}&to=${to}`);
  const changed = Object.entries(data.fields);
  return el('section', { 'aria-label': 'Changes' },
    el('h3', {}, `Changes from revision ${data.from} to ${data.to}`),
    changed.length ? el('div', { class: 'scroll' }, el('table', {},
      el('thead', {}, el('tr', {}, ['Field', 'From', 'To'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, changed.map(([name, change]) => el('tr', {}, el('th', { scope: 'row' }, name),
        el('td', {}, JSON.stringify(change.from)), el('td', {}, JSON.stringify(change.to))))))) : el('p', { class: 'note' }, 'No field but the definition changed.'),
    diffView(data.yml));
}

async function restoreTo(bp, rev, etag) {
  try {
    await api('POST', `/blueprints/${bp.id}/revisions/${rev}/restore`, { headers: { 'If-Match': etag } });
    say(`Revision ${rev} restored.`);
  } catch (error) {
    say(error.status === 412 ? 'Someone changed it since this page was loaded: shown again as it is now.' : error.message);
  }
  route();
}

async function blueprintPage([id]) {
  const { data: bp, etag } = await api('GET', `/blueprints/${id}`);
  const sections = [
    ['Requirements', async () => requirementsView(bp.requirements)],
    ['Fit to your profiles', () => fitsView(bp)],
    ['Definition', async () => (bp.yml === null ? el('p', { class: 'note' }, 'No definition.') : codeView(bp.yml))],
    ['History', () => historyView(bp, etag)],
  ];
  const filled = await Promise.all(sections.map(([, make]) => make()));
  const hasParameters = bp.parameters && Object.keys(bp.parameters.properties || {}).length;
  return el('article', {},
    el('div', { class: 'top row' }, el('h1', {}, bp.name || '(unnamed)'), starButton(bp)),
    el('p', { class: 'meta' }, [bp.version && `version ${bp.version}`, bp.blueprintType || 'no type', bp.entitlementType,
      `owner ${bp.owner}`, `revision ${bp.rev} by ${bp.updatedBy}, ${when(bp.updatedAt)}`, bp.inactive && 'inactive'].filter(Boolean).join(' · ')),
    bp.tags && bp.tags.length ? el('ul', { class: 'tags', 'aria-label': 'Tags' }, bp.tags.map((t) => el('li', {}, t))) : null,
    bp.description ? el('p', { class: 'desc' }, bp.description) : null,
    el('div', { class: 'actions' },
      canChange(bp) ? el('a', { class: 'button', href: `#/blueprints/${bp.id}/edit` }, 'Edit') : null,
      bp.yml !== null ? el('a', { class: 'button quiet', href: `#/blueprints/${bp.id}/parameters` }, hasParameters ? 'Parameters and render' : 'Render') : null,
      bp.yml !== null ? el('button', { type: 'button', class: 'quiet', onclick: () => download(bp) }, 'Download YAML') : null),
    sections.map(([title], i) => el('section', { 'aria-label': title }, el('h2', {}, title), filled[i])));
}

// ---- Parameters and render -----------------------------------------------------------------

function parameterControl(name, schema) {
  const common = { name, 'data-type': schema.type };
  const initial = schema.default !== undefined ? schema.default : schema.examples && schema.examples.length ? schema.examples[0] : undefined;
  if (schema.enum) {
    return select(schema.enum.map((v) => [JSON.stringify(v), String(v)]), initial === undefined ? undefined : JSON.stringify(initial), { ...common, 'data-enum': 'true' });
  }
  if (schema.type === 'boolean') return el('input', { ...common, type: 'checkbox', checked: Boolean(initial) });
  if (schema.type === 'integer' || schema.type === 'number') {
    return el('input', { ...common, type: 'number', value: initial === undefined ? '' : String(initial), min: schema.minimum, max: schema.maximum,
      step: schema.type === 'integer' ? '1' : 'any' });
  }
  const secret = schema.writeOnly;
  return el('input', { ...common, type: secret ? 'password' : 'text', autocomplete: secret ? 'new-password' : 'off',
    value: secret || initial === undefined ? '' : String(initial), maxlength: schema.maxLength,
    placeholder: schema['x-generate'] ? 'generated when left empty' : secret && initial !== undefined ? 'its default when left empty' : '' });
}

function valueOf(control) {
  if (control.dataset.enum) return JSON.parse(control.value);
  if (control.type === 'checkbox') return control.checked;
  if (control.value === '') return undefined; // its default, example or generated value
  if (control.dataset.type === 'integer') return Number.parseInt(control.value, 10);
  if (control.dataset.type === 'number') return Number(control.value);
  return control.value;
}

async function parametersPage([id]) {
  const [{ data: bp }, profiles] = await Promise.all([api('GET', `/blueprints/${id}`), everything(myProfiles())]);
  const properties = (bp.parameters && bp.parameters.properties) || {};
  const required = new Set((bp.parameters && bp.parameters.required) || []);
  const controls = {};
  const output = el('div', { 'aria-live': 'polite' });
  const profile = select([['', 'No profile'], ...profiles.map((p) => [p.id, p.name || '(unnamed)'])],
    (profiles.find((p) => p.defaultProfile) || {}).id || '');
  const values = () => Object.fromEntries(Object.entries(controls).map(([name, c]) => [name, valueOf(c)]).filter(([, v]) => v !== undefined));

  async function render(maximize) {
    const body = { values: values() };
    if (profile.value) body.profile = profile.value;
    if (maximize) body.maximize = maximize;
    try {
      const { data } = await api('POST', `/blueprints/${id}/render`, { body });
      const shown = [];
      if (data.maximized) {
        const [name, most] = Object.entries(data.maximized)[0];
        if (most !== null) controls[name].value = String(most);
        shown.push(el('p', { class: 'ok' }, most === null ? `No value of ${name} fits this profile.` : `At most ${name} = ${most} fits this profile.`));
      }
      // The rendered text may hold secrets: it lives in this view only, never in storage or the URL.
      output.replaceChildren(...shown, el('h2', {}, 'Requirements of the render'), requirementsView(data.requirements),
        data.fit ? el('div', {}, el('h3', {}, 'Fit ', fitBadge(data.fit)), fitTable(data.fit, 'Against the chosen profile')) : null,
        el('h2', {}, 'Rendered definition'), codeView(data.yml, new Set(), 'Rendered definition'));
    } catch (error) {
      output.replaceChildren(problemList(error));
    }
  }

  const rows = Object.entries(properties).map(([name, schema]) => {
    controls[name] = parameterControl(name, schema);
    const notes = [schema.description, schema.type, required.has(name) ? 'required' : null,
      schema.minimum !== undefined ? `at least ${schema.minimum}` : null, schema.maximum !== undefined ? `at most ${schema.maximum}` : null,
      schema['x-generate'] ? `generated (${schema['x-generate']}) when left empty` : null, schema.writeOnly ? 'secret: never shown again' : null].filter(Boolean).join(' · ');
    const most = schema.type === 'integer'
      ? el('button', { type: 'button', class: 'quiet', onclick: () => (profile.value ? render(name) : say('Choose a profile first.')) }, `Most ${name} that fits`) : null;
    return el('div', { class: 'field' }, field(schema.title || name, controls[name], notes), most);
  });
  const form = el('form', { class: 'grid2' }, rows, field('Profile to fit', profile),
    el('div', { class: 'actions wide' }, el('button', { type: 'submit' }, 'Render')));
  form.addEventListener('submit', (event) => { event.preventDefault(); render(null); });
  return el('section', {}, el('h1', {}, `Render ${bp.name || '(unnamed)'}`),
    el('p', {}, el('a', { href: `#/blueprints/${id}` }, 'Back to the blueprint')),
    rows.length ? null : el('p', { class: 'note' }, 'This blueprint declares no parameters: the render is its definition, measured and fitted.'),
    form, output);
}

// ---- Editor --------------------------------------------------------------------------------

/** The line of the definition that a problem's place (`services.web.image`) or text (`line 4`) names. */
function lineOf(text, place, message) {
  const stated = /line (\d+)/.exec(message);
  if (stated) return Number(stated[1]);
  if (!place) return null;
  const path = place.split('.').filter((part) => !/^\d+$/.test(part));
  const lines = text.split('\n');
  let found = null;
  let depth = 0;
  let indent = -1;
  for (let i = 0; i < lines.length && depth < path.length; i += 1) {
    const match = /^(\s*)(?:- )?("?)([^:#"]+)\2\s*:(\s|$)/.exec(lines[i]);
    if (match && match[3].trim() === path[depth] && match[1].length > indent) {
      found = i + 1;
      depth += 1;
      indent = match[1].length;
    }
  }
  return found;
}

async function editor([id] = []) {
  let loaded = null;
  let etag = null;
  if (id) ({ data: loaded, etag } = await api('GET', `/blueprints/${id}`));
  const doc = loaded || { entitlementType: 'OWNER', inactive: false, tags: [], entitledUsers: [] };
  const input = (name, attrs = {}) => el('input', { name, value: doc[name] || '', ...attrs });
  const name = input('name', { maxlength: '200' });
  const version = input('version', { maxlength: '64' });
  const type = input('blueprintType', { list: 'types', maxlength: '64' });
  const description = el('textarea', { name: 'description', rows: '3', maxlength: '10000' }, doc.description || '');
  const entitlement = select([['OWNER', 'Owner only'], ['PUBLIC', 'Everyone'], ['CUSTOM', 'The users named']], doc.entitlementType);
  const entitled = el('input', { name: 'entitledUsers', value: (doc.entitledUsers || []).join(', '), placeholder: 'alice, bob' });
  const tags = el('input', { name: 'tags', value: (doc.tags || []).join(', '), placeholder: 'web, db' });
  const inactive = checkbox('Inactive', doc.inactive);
  const parameters = el('textarea', { name: 'parameters', rows: '6', spellcheck: 'false', class: 'mono' }, doc.parameters ? JSON.stringify(doc.parameters, null, 2) : '');
  const yml = el('textarea', { name: 'yml', spellcheck: 'false', wrap: 'off', 'aria-describedby': 'checks' }, doc.yml || '');
  const gutter = el('ol', { class: 'gutter', 'aria-hidden': 'true' });
  const checks = el('div', { id: 'checks', 'aria-live': 'polite' });
  const conflict = el('div', { 'aria-live': 'polite' });
  const save = el('button', { type: 'submit' }, id ? 'Save' : 'Create');
  const declare = el('button', { type: 'button', class: 'quiet' }, 'Declare the variables');

  function list(text) {
    return text.split(',').map((t) => t.trim()).filter(Boolean);
  }

  function body() {
    let parsed = null;
    if (parameters.value.trim()) {
      try { parsed = JSON.parse(parameters.value); } catch { throw new ApiError(422, { errors: { parameters: ['Not valid JSON.'] } }); }
    }
    const sent = {
      name: name.value || null, version: version.value || null, description: description.value || null,
      blueprintType: type.value || null, yml: yml.value === '' ? null : yml.value, entitlementType: entitlement.value,
      inactive: inactive.box.checked, tags: list(tags.value), parameters: parsed,
    };
    if (entitlement.value === 'CUSTOM') sent.entitledUsers = list(entitled.value);
    return sent;
  }

  function mark(lines) {
    const count = yml.value.split('\n').length;
    gutter.replaceChildren(...Array.from({ length: count }, (_, i) => el('li', { class: lines.has(i + 1) ? 'bad' : null })));
    gutter.scrollTop = yml.scrollTop;
  }

  function goTo(line) {
    const starts = yml.value.split('\n').slice(0, line - 1).reduce((at, l) => at + l.length + 1, 0);
    yml.focus();
    yml.setSelectionRange(starts, starts + (yml.value.split('\n')[line - 1] || '').length);
  }

  function showProblems(error) {
    const found = problemsOf(error).map(([place, message]) => {
      const line = place === 'yml' ? lineOf(yml.value, message.split(':')[0], message) : null;
      return { place, message, line };
    });
    mark(new Set(found.map((p) => p.line).filter(Boolean)));
    checks.replaceChildren(el('ul', { class: 'problems error', role: 'alert' }, found.map((p) => el('li', {},
      p.place ? `${p.place}: ${p.message}` : p.message,
      p.line ? [' ', el('button', { type: 'button', onclick: () => goTo(p.line) }, `line ${p.line}`)] : null))));
  }

  let timer = null;
  let checking = 0;
  async function check() {
    const mine = ++checking;
    let sent;
    try { sent = body(); } catch (error) { showProblems(error); return; }
    try {
      const { data } = id ? await api('PUT', `/blueprints/${id}?dryRun=true`, { body: sent }) : await api('POST', '/blueprints?dryRun=true', { body: sent });
      if (mine !== checking) return;
      mark(new Set());
      checks.replaceChildren(el('p', { class: 'ok' }, 'No problems. ', needs(data.requirements)));
    } catch (error) {
      if (mine === checking) showProblems(error);
    }
  }

  const form = el('form', { class: 'grid2', novalidate: '' },
    field('Name', name), field('Version', version), field('Type', type, 'compose and kubernetes definitions are checked and measured'),
    field('Who may read it', entitlement), field('Users who may read it (with "The users named")', entitled), field('Tags', tags, 'Comma-separated'),
    el('div', { class: 'wide' }, field('Description', description)), inactive.node,
    el('div', { class: 'wide field' }, el('label', { for: 'yml-input' }, 'Definition (YAML)'), el('div', { class: 'editor' }, gutter, yml)),
    el('div', { class: 'wide' }, checks),
    el('div', { class: 'wide' }, field('Parameters (a JSON Schema of type object; empty for none)', parameters),
      el('div', { class: 'actions' }, declare, el('small', { class: 'note' }, 'Compose: each ${VARIABLE} of the definition, typed from its default'))),
    el('div', { class: 'wide actions' }, save, el('a', { class: 'button quiet', href: id ? `#/blueprints/${id}` : '#/' }, 'Cancel')),
    el('div', { class: 'wide' }, conflict),
    el('datalist', { id: 'types' }, ['compose', 'docker-compose', 'kubernetes', 'k8s'].map((t) => el('option', { value: t }))));
  yml.id = 'yml-input';
  form.addEventListener('input', () => { clearTimeout(timer); mark(new Set()); timer = setTimeout(check, DEBOUNCE_MS); });
  yml.addEventListener('scroll', () => { gutter.scrollTop = yml.scrollTop; });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearTimeout(timer);
    let sent;
    try { sent = body(); } catch (error) { showProblems(error); return; }
    save.disabled = true;
    try {
      const { data } = id ? await api('PUT', `/blueprints/${id}`, { body: sent, headers: { 'If-Match': etag } }) : await api('POST', '/blueprints', { body: sent });
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
    const overwrite = el('button', { type: 'button', onclick: () => { etag = currentTag; loaded = current; conflict.replaceChildren(); form.requestSubmit(); } }, 'Save mine over theirs');
    conflict.replaceChildren(el('div', { role: 'alert' },
      el('p', { class: 'error' }, `${current.updatedBy} changed this blueprint at ${when(current.updatedAt)} (revision ${current.rev}) since you opened it. Nothing of yours was saved.`),
      theirs, el('div', { class: 'actions' }, overwrite, el('a', { class: 'button quiet', href: `#/blueprints/${id}` }, 'Discard mine and see theirs'))));
  }

  /** The parameters a Compose import would infer from the definition (a dry run), added to the
      ones already declared: those stay as they are. */
  declare.addEventListener('click', async () => {
    try {
      const { data } = await api('POST', '/imports?dryRun=true', { body: {
        format: 'compose', source: 'editor', document: yml.value, defaults: { name: name.value.trim() || 'draft' } } });
      const [result] = data.results;
      if (result.outcome === 'refused') {
        showProblems(new ApiError(422, { errors: { yml: result.problems.map((p) => p.replace(/^yml: /, '')) } }));
        return;
      }
      const proposed = result.blueprint.parameters || { type: 'object', properties: {} };
      const current = parameters.value.trim() ? JSON.parse(parameters.value) : { type: 'object', properties: {} };
      const added = Object.keys(proposed.properties).filter((n) => !(n in (current.properties || {})));
      const merged = { ...current, properties: { ...proposed.properties, ...current.properties } };
      const required = [...new Set([...(current.required || []), ...(proposed.required || []).filter((n) => added.includes(n))])];
      if (required.length) merged.required = required;
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

// ---- Imports -------------------------------------------------------------------------------

const IMPORT_FORMATS = [['portainer', 'Portainer app templates (v2, v3)'], ['openshift', 'OpenShift templates'],
  ['compose', 'A Compose file and its .env'], ['native', 'An export of this catalog']];

/** The report of an import: the counts, then one row per template with its notes and problems. */
function importReport(report, dryRun) {
  const counts = Object.entries(report.counts).filter(([, n]) => n).map(([outcome, n]) => `${n} ${outcome}`);
  return el('div', {},
    el('p', { class: dryRun ? 'note' : 'ok' }, dryRun ? 'Nothing is stored yet: ' : 'Done: ', counts.join(', '), '.'),
    el('div', { class: 'scroll' }, el('table', { class: 'report', 'aria-label': dryRun ? 'What the import would do' : 'What the import did' },
      el('thead', {}, el('tr', {}, ['Template', 'Outcome', 'Notes'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, report.results.map((r) => el('tr', { class: `outcome-${r.outcome}` },
        el('td', {}, r.id && !dryRun ? el('a', { href: `#/blueprints/${r.id}` }, r.title || r.key) : r.title || r.key),
        el('td', {}, r.outcome),
        el('td', {}, el('ul', { class: 'plain' }, [...r.problems.map((p) => el('li', { class: 'error' }, p)),
          ...r.notes.map((n) => el('li', {}, n))]))))))));
}

/** The stack files a Portainer catalog names, from the files of a chosen folder (a checkout of
    the catalog's repository): each path the catalog names, from the folder's top. */
function stackFiles(catalogText, chosen) {
  let catalog;
  try { catalog = JSON.parse(catalogText); } catch { return {}; }
  const named = (catalog.templates || []).map((t) => t.repository && t.repository.stackfile).filter(Boolean);
  const found = {};
  for (const path of named) {
    const match = chosen.find((f) => f.path === path);
    if (match) found[path] = match.text;
  }
  return found;
}

async function importPage() {
  const format = select(IMPORT_FORMATS, 'portainer', { name: 'format' });
  const source = el('input', { name: 'source', maxlength: '200', placeholder: 'portainer/templates', required: true });
  const documentText = el('textarea', { name: 'document', rows: '10', spellcheck: 'false', wrap: 'off', class: 'mono' });
  const upload = el('input', { type: 'file', name: 'upload', accept: '.json,.yml,.yaml,.txt' });
  const folder = el('input', { type: 'file', name: 'stacks', multiple: true });
  folder.webkitdirectory = true;
  const env = el('textarea', { name: 'env', rows: '4', spellcheck: 'false', class: 'mono', placeholder: 'TAG=1.27' });
  const name = el('input', { name: 'name', maxlength: '200' });
  const entitlement = select([['OWNER', 'Owner only'], ['PUBLIC', 'Everyone']], 'OWNER');
  const tags = el('input', { name: 'tags', placeholder: 'imported, team-a' });
  const out = el('div', { 'aria-live': 'polite' });
  const run = el('button', { type: 'button', disabled: true }, 'Import');
  let chosen = [];
  const byFormat = {
    portainer: [field('Stack files: the folder of the catalog repository', folder, 'Each template\'s repository.stackfile is looked for in it')],
    compose: [field('Name of the blueprint', name), field('.env (optional)', env)],
  };
  const extra = el('div', { class: 'wide' });
  function shown() { extra.replaceChildren(...(byFormat[format.value] || [])); }

  function body() {
    const fmt = format.value;
    const defaults = { entitlementType: entitlement.value, tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean) };
    let files = {};
    if (fmt === 'compose') {
      defaults.name = name.value.trim() || undefined;
      if (env.value.trim()) files = { '.env': env.value };
    } else if (fmt === 'portainer') {
      files = stackFiles(documentText.value, chosen);
    }
    return { format: fmt, source: source.value.trim(), document: documentText.value, files, defaults };
  }

  async function send(dryRun) {
    const { data } = await api('POST', `/imports${dryRun ? '?dryRun=true' : ''}`, { body: body() });
    out.replaceChildren(importReport(data, dryRun));
    run.disabled = !dryRun;
    if (!dryRun) say('Imported.');
  }

  const form = el('form', { class: 'grid2', novalidate: '' },
    field('Format', format), field('Source', source, 'Importing the same source again updates what it made'),
    el('div', { class: 'wide' }, field('Catalog or Compose file (paste it, or choose its file)', documentText)),
    el('div', { class: 'wide' }, field('File', upload)), extra,
    field('Who may read what it makes', entitlement), field('Tags for what it makes', tags, 'Comma-separated'),
    el('div', { class: 'wide actions' }, el('button', { type: 'submit' }, 'Preview'), run),
    el('div', { class: 'wide' }, out));
  format.addEventListener('change', shown);
  form.addEventListener('input', () => { run.disabled = true; });
  upload.addEventListener('change', async () => {
    if (upload.files[0]) documentText.value = await upload.files[0].text();
    run.disabled = true;
  });
  folder.addEventListener('change', async () => {
    const inFolder = (f) => (f.webkitRelativePath || f.name).split('/').slice(1).join('/'); // without the folder's own name
    chosen = await Promise.all([...folder.files].map(async (f) => ({ path: inFolder(f), text: await f.text() })));
    run.disabled = true;
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try { await send(true); } catch (error) { out.replaceChildren(problemList(error)); }
  });
  run.addEventListener('click', async () => {
    run.disabled = true;
    try { await send(false); } catch (error) { out.replaceChildren(problemList(error)); }
  });
  shown();
  return el('section', {}, el('h1', {}, 'Import'),
    el('p', { class: 'note' }, 'Bring templates you already have: each becomes a blueprint, checked and measured, its variables parameters. Preview first: nothing is stored until you import.'),
    form);
}

// ---- Profiles and users --------------------------------------------------------------------

const CAPS = [['memoryCap', 'Memory cap', '2Gi, 512M'], ['cpuCap', 'CPU cap', '2, 0.5, 500m'], ['containerCap', 'Container cap', '10'], ['storageCap', 'Storage cap', '20Gi']];

async function profilesPage() {
  const profiles = await everything('/profiles');
  const admin = session.user.role === 'admin';
  let editing = null;
  let editingTag = null;
  const inputs = Object.fromEntries([['name', 'Name', ''], ...CAPS].map(([key, , hint]) => [key, el('input', { name: key, placeholder: hint })]));
  const isDefault = checkbox('The default profile', false);
  const title = el('h2', { class: 'wide' }, 'New profile');
  const problems = el('div', { 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit' }, 'Create');
  const cancel = el('button', { type: 'button', class: 'quiet', hidden: true }, 'Cancel');
  const form = el('form', { class: 'grid2' }, title,
    [['name', 'Name'], ...CAPS].map(([key, label]) => field(label, inputs[key])), isDefault.node,
    el('div', { class: 'wide actions' }, submit, cancel), el('div', { class: 'wide' }, problems));

  function edit(profile, tag) {
    editing = profile;
    editingTag = tag;
    title.textContent = profile ? `Edit ${profile.name || '(unnamed)'}` : 'New profile';
    submit.textContent = profile ? 'Save' : 'Create';
    cancel.hidden = !profile;
    for (const key of Object.keys(inputs)) inputs[key].value = (profile && profile[key]) || '';
    isDefault.box.checked = Boolean(profile && profile.defaultProfile);
    problems.replaceChildren();
    if (profile) inputs.name.focus();
  }
  cancel.addEventListener('click', () => edit(null));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = Object.fromEntries(Object.entries(inputs).map(([key, input]) => [key, input.value.trim() || null]));
    body.defaultProfile = isDefault.box.checked;
    try {
      if (editing) await api('PUT', `/profiles/${editing.id}`, { body, headers: { 'If-Match': editingTag } });
      else await api('POST', '/profiles', { body });
      say(editing ? 'Profile saved.' : 'Profile created.');
      route();
    } catch (error) {
      problems.replaceChildren(error.status === 412 ? el('p', { class: 'error' }, 'Someone changed this profile meanwhile: reload to see it.') : problemList(error));
    }
  });

  async function act(profile, change) {
    const { etag } = await api('GET', `/profiles/${profile.id}`);
    await change(etag);
    route();
  }

  const rows = profiles.map((p) => el('li', { class: 'card' },
    el('div', { class: 'top' }, el('h3', {}, p.name || '(unnamed)', ' ', p.defaultProfile ? el('span', { class: 'badge fits' }, 'default') : null)),
    el('p', { class: 'needs' }, caps(p.limits)),
    admin ? el('p', { class: 'meta' }, `owner ${p.owner}`) : null,
    el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'quiet', 'aria-label': `Edit ${p.name || 'profile'}`, onclick: async () => { const { data, etag } = await api('GET', `/profiles/${p.id}`); edit(data, etag); } }, 'Edit'),
      p.defaultProfile ? null : el('button', { type: 'button', class: 'quiet', 'aria-label': `Make ${p.name || 'profile'} the default`,
        onclick: () => act(p, (etag) => api('PATCH', `/profiles/${p.id}`, { body: { defaultProfile: true }, headers: { 'If-Match': etag } })) }, 'Make default'),
      el('a', { class: 'button quiet', href: `#/?profile=${p.id}&fitsOnly=true` }, 'What fits'))));
  return el('section', {}, el('h1', {}, 'Profiles'),
    rows.length ? el('ul', { class: 'cards', 'aria-label': 'Profiles' }, rows) : el('p', { class: 'note' }, 'No profile yet.'), form);
}

async function usersPage() {
  const users = await everything('/users');
  const username = el('input', { name: 'username', autocomplete: 'off', minlength: '3', maxlength: '64' });
  const password = el('input', { name: 'password', type: 'password', autocomplete: 'new-password', minlength: '8' });
  const role = select([['viewer', 'viewer: reads'], ['member', 'member: reads, creates, changes its own'], ['admin', 'admin: everything']], 'member');
  const problems = el('div', { 'aria-live': 'polite' });
  const form = el('form', { class: 'grid2' }, el('h2', { class: 'wide' }, 'New user'), field('Username', username), field('Password', password), field('Role', role),
    el('div', { class: 'wide actions' }, el('button', { type: 'submit' }, 'Create user')), el('div', { class: 'wide' }, problems));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await api('POST', '/users', { body: { username: username.value, password: password.value, role: role.value } });
      say(`User ${username.value} created.`);
      route();
    } catch (error) {
      problems.replaceChildren(problemList(error));
    }
  });
  return el('section', {}, el('h1', {}, 'Users'),
    el('div', { class: 'scroll' }, el('table', { 'aria-label': 'Users' },
      el('thead', {}, el('tr', {}, ['Username', 'Role', 'Since'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, users.map((u) => el('tr', {}, el('td', {}, u.username), el('td', {}, u.role + (u.disabled ? ' (disabled)' : '')), el('td', {}, when(u.createdAt))))))),
    form);
}

// ---- Routing -------------------------------------------------------------------------------

const ROUTES = [
  [/^\/$/, catalog, 'Catalog'],
  [/^\/new$/, () => editor(), 'New blueprint'],
  [/^\/blueprints\/([0-9a-f]{24})$/, blueprintPage, 'Blueprint'],
  [/^\/blueprints\/([0-9a-f]{24})\/edit$/, editor, 'Edit blueprint'],
  [/^\/blueprints\/([0-9a-f]{24})\/parameters$/, parametersPage, 'Render'],
  [/^\/import$/, importPage, 'Import'],
  [/^\/profiles$/, profilesPage, 'Profiles'],
  [/^\/users$/, usersPage, 'Users'],
];

let shownRoute = 0;
async function route() {
  const mine = ++shownRoute;
  const [path, query = ''] = (location.hash.slice(1) || '/').split('?');
  const found = ROUTES.map(([pattern, view, title]) => [pattern.exec(path), view, title]).find(([match]) => match);
  if (!found) {
    main.replaceChildren(el('h1', {}, 'Not found'), el('p', {}, el('a', { href: '#/' }, 'Back to the catalog')));
    return;
  }
  const [match, view, title] = found;
  main.setAttribute('aria-busy', 'true');
  try {
    const node = await view(match.slice(1), new URLSearchParams(query));
    if (mine !== shownRoute) return;
    main.replaceChildren(node);
    main.dataset.shown = String(mine); // which rendering is on screen: scripts driving the page wait on it
    document.title = `${title} · Blueprint catalog`;
    main.focus();
  } catch (error) {
    if (mine !== shownRoute) return;
    main.replaceChildren(el('h1', {}, error.status === 404 ? 'Not found' : 'Something went wrong'), problemList(error),
      el('p', {}, el('a', { href: '#/' }, 'Back to the catalog')));
  } finally {
    if (mine === shownRoute) main.removeAttribute('aria-busy');
  }
}

document.getElementById('sign-out').addEventListener('click', signOut);
window.addEventListener('hashchange', route);
(async () => {
  if (!session || Date.parse(session.expiresAt) <= Date.now()) await signIn();
  else showNav();
  route();
})();
