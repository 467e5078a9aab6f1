/* What every view uses: elements made with `el` (every text goes in as text nodes, never as
   markup, so a name like `<img onerror=...>` shows as the characters it is), the units amounts
   are shown in, the API with the caller's bearer token, and signing in and out. */

const SESSION = 'catalog.session'; // {token, expiresAt, user}: sessionStorage, never a cookie or URL
export const PAGE = 50;
export const DEBOUNCE_MS = 400;
export const FIT_FETCHES = 6; // at once, the browser's connections per host
export const RESOURCES = ['memory', 'cpu', 'containers', 'storage'];
// a resource -> its key in `requirements`, a profile's `limits` and its `usage`
export const RESOURCE_KEYS = { memory: 'memoryBytes', cpu: 'cpuMillis', containers: 'containers', storage: 'storageBytes' };

export let session = JSON.parse(sessionStorage.getItem(SESSION) || 'null');
export const main = document.getElementById('main');

// ---- DOM -----------------------------------------------------------------------------------

/** An element with attributes, listeners (`onclick`...) and children (strings become text). */
export function el(tag, attrs = {}, ...children) {
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
export function field(label, control, help) {
  control.id = control.id || `f${++fieldIds}`;
  return el('div', { class: 'field' }, el('label', { for: control.id }, label), control,
    help ? el('small', { class: 'note' }, help) : null);
}

export function checkbox(label, checked, attrs = {}) {
  const box = el('input', { type: 'checkbox', id: `f${++fieldIds}`, checked: Boolean(checked), ...attrs });
  return { box, node: el('div', { class: 'check' }, box, el('label', { for: box.id }, label)) };
}

export function select(options, chosen, attrs = {}) {
  return el('select', attrs, options.map(([value, text]) => el('option', { value, selected: value === chosen }, text)));
}

export function say(text) {
  const status = document.getElementById('status');
  status.textContent = text;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { status.textContent = ''; }, 4000);
}

/** The lines of `text`, numbered, with `marked` (1-based) highlighted. */
export function codeView(text, marked = new Set(), label = 'Definition') {
  const lines = (text || '').replace(/\n$/, '').split('\n');
  return el('ol', { class: 'code', 'aria-label': label },
    lines.map((line, i) => el('li', { class: marked.has(i + 1) ? 'bad' : null }, line)));
}

export function diffView(text) {
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

export const AMOUNT = { memory: bytes, cpu: cpus, containers, storage: bytes };

/** What a blueprint needs, in words: `3 containers, 1.5 GiB, 2 CPUs`; an amount that some
    container leaves undeclared (`unbounded`) is a floor: `at least 512 MiB`, or `memory undeclared`. */
export function needs(requirements) {
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

/** How a fit used the profile's container defaults, in words ("with the profile's default of
    256 MiB for 3 containers"), or null where no container took one. */
export function defaultsApplied(fit, limits) {
  const defaults = (limits && limits.containerDefaults) || {};
  const parts = [['memory', 'memoryBytes'], ['cpu', 'cpuMillis']]
    .filter(([name]) => fit.resources && fit.resources[name].defaulted.length)
    .map(([name, key]) => {
      const count = containers(fit.resources[name].defaulted.length);
      return defaults[key] === null || defaults[key] === undefined ? `its ${name} default for ${count}` : `${AMOUNT[name](defaults[key])} for ${count}`;
    });
  if (!parts.length) return null;
  return `with the profile's default${parts.length > 1 ? 's' : ''} of ${parts.join(' and ')}`;
}

export function caps(limits) {
  const parts = [];
  if (limits.memoryBytes !== null) parts.push(`${bytes(limits.memoryBytes)} memory`);
  if (limits.cpuMillis !== null) parts.push(cpus(limits.cpuMillis));
  if (limits.containers !== null) parts.push(containers(limits.containers));
  if (limits.storageBytes !== null) parts.push(`${bytes(limits.storageBytes)} storage`);
  for (const [field, words] of [['containerDefaults', 'a container declaring none counts'], ['containerMax', 'at most per container']]) {
    const given = limits[field] || {};
    const amounts = [given.memoryBytes ? bytes(given.memoryBytes) : null, given.cpuMillis ? cpus(given.cpuMillis) : null].filter(Boolean);
    if (amounts.length) parts.push(`${words} ${amounts.join(' and ')}`);
  }
  return parts.length ? parts.join(', ') : 'No caps';
}

/** What something costs a month (`{monthly, currency}`), or null where nothing is priced. */
export function monthly(cost) {
  return cost && cost.monthly !== null && cost.monthly !== undefined ? `${cost.monthly.toFixed(2)} ${cost.currency} a month` : null;
}

export function when(iso) {
  return new Date(iso).toLocaleString();
}

// ---- The API -------------------------------------------------------------------------------

const JOB_POLL_MS = 400;

export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** The address of an API path (`/profiles`): under the page's own folder, so that behind a
    reverse proxy that serves the service under a path prefix every call stays under it. */
export function served(path) {
  return new URL(path.replace(/^\//, ''), document.baseURI).href;
}

/** One call of the API with the bearer token. A 401 (an expired or revoked token) brings the
    sign-in back over the page, then the same call is made again: nothing on the page is lost. */
export async function api(method, path, { body, headers = {} } = {}) {
  for (;;) {
    const sent = { Accept: 'application/json', ...headers };
    if (session) sent.Authorization = `Bearer ${session.token}`;
    const init = { method, headers: sent, credentials: 'omit', cache: 'no-store' };
    if (body !== undefined) {
      sent['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(served(path), init);
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
export async function everything(path, most = 1000) {
  const items = [];
  let next = `${path}${path.includes('?') ? '&' : '?'}limit=200`;
  while (next && items.length < most) {
    const { data } = await api('GET', next);
    items.push(...data.items);
    next = data.next ? `${path}${path.includes('?') ? '&' : '?'}limit=200&cursor=${encodeURIComponent(data.next)}` : null;
  }
  return items;
}

/** A job the service runs (an import, a sync, an upgrade of many) followed until it ends, each
    step of its progress handed to `progress(job)`; a failed one throws its error. */
export async function followed(job, progress = () => {}) {
  let current = job;
  while (current.state === 'queued' || current.state === 'running') {
    progress(current);
    await new Promise((resolve) => { setTimeout(resolve, JOB_POLL_MS); });
    ({ data: current } = await api('GET', `/jobs/${current.id}`));
  }
  if (current.state === 'failed') throw new ApiError(409, { detail: current.error });
  return current;
}

/** A job's progress in words: `Importing: 120 of 406`. */
export function progressOf(what, job) {
  return `${what}: ${job.done} of ${job.total === null ? '…' : job.total}`;
}

/** Problems of a 422 as [place, message] pairs; anything else as one message. */
export function problemsOf(error) {
  if (error instanceof ApiError && error.body && error.body.errors) {
    return Object.entries(error.body.errors).flatMap(([place, messages]) => [].concat(messages).map((m) => [place, m]));
  }
  return [[null, error.message]];
}

export function problemList(error) {
  return el('ul', { class: 'problems error', role: 'alert' },
    problemsOf(error).map(([place, message]) => el('li', {}, place ? `${place}: ${message}` : message)));
}

// ---- Signing in and out --------------------------------------------------------------------

let pendingSignIn = null;

function basicAuth(username, password) {
  const utf8 = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...utf8))}`;
}

/** Whether the service signs in through an identity provider (`GET /sso`), asked once. */
let singleSignOn = null;
function offersSingleSignOn() {
  singleSignOn ??= fetch(served('/sso'), { credentials: 'omit' }).then((r) => r.json()).then((config) => Boolean(config.issuer)).catch(() => false);
  return singleSignOn;
}

/** Back from the identity provider (`?sso=done`): the token the service issued is taken, once,
    from its short-lived cookie, and the address loses its query. False where there is none. */
export async function signedInThroughProvider() {
  const said = new URLSearchParams(window.location.search).get('sso');
  if (!said) return false;
  window.history.replaceState(null, '', window.location.pathname + window.location.hash);
  if (said !== 'done') {
    await signIn('Your organization did not sign you in here: ask an admin, or sign in with a password.');
    return true;
  }
  const handed = await fetch(served('/sso/session'), { method: 'POST', credentials: 'same-origin', cache: 'no-store' });
  if (!handed.ok) return false;
  const token = await handed.json();
  const me = await fetch(served('/users/me'), { headers: { Authorization: `Bearer ${token.token}`, Accept: 'application/json' }, credentials: 'omit' });
  session = { token: token.token, expiresAt: token.expiresAt, user: await me.json() };
  sessionStorage.setItem(SESSION, JSON.stringify(session));
  showNav();
  return true;
}

/** Resolves once the user has signed in; every call waiting on a 401 waits on the same one. */
export function signIn(reason = '') {
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
        const response = await fetch(served('/tokens'), { method: 'POST', headers: auth, credentials: 'omit', cache: 'no-store' });
        if (!response.ok) {
          document.getElementById('sign-in-reason').textContent = '';
          error.textContent = response.status === 401 ? 'Wrong username or password.'
            : response.status === 429 ? 'Too many attempts: wait a moment and try again.' : `Sign-in failed (${response.status}).`;
          return;
        }
        token = await response.json();
        const me = await fetch(served('/users/me'), { headers: { Authorization: `Bearer ${token.token}`, Accept: 'application/json' }, credentials: 'omit' });
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
  offersSingleSignOn().then((offered) => { document.getElementById('sign-in-sso').hidden = !offered; });
  if (!dialog.open) dialog.showModal();
  document.getElementById('sign-in-username').focus();
  return pendingSignIn;
}

export function showNav() {
  const user = session.user;
  document.getElementById('nav').hidden = false;
  document.getElementById('whoami').textContent = `${user.username} (${user.role})`;
  document.getElementById('nav-users').hidden = user.role !== 'admin';
  document.getElementById('nav-new').hidden = user.role === 'viewer';
  document.getElementById('nav-import').hidden = user.role === 'viewer';
}

export async function signOut() {
  try {
    await fetch(served('/tokens'), { method: 'DELETE', headers: { Authorization: `Bearer ${session.token}` }, credentials: 'omit' });
  } finally {
    document.getElementById('nav').hidden = true;
    main.replaceChildren();
    await signIn('Signed out.');
    refresh();
  }
}

/** The caller's own profiles (an admin lists everyone's otherwise): what a fit is chosen among. */
export function myProfiles() {
  return `/profiles?owner=${encodeURIComponent(session.user.username)}`;
}

let formatsServed = null;

/** What the service reads, as it serves it (`GET /formats`): the import formats with the folders
    they are read from, the blueprint types with their aliases, the size bounds; read once. The
    page keeps no list of its own. */
export function formats() {
  formatsServed = formatsServed || api('GET', '/formats').then(({ data }) => data)
    .catch((error) => { formatsServed = null; throw error; });
  return formatsServed;
}

/** Shows the view of the current URL again (app.js routes on every `hashchange`). */
export function refresh() {
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}
