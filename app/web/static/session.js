/* The caller's session: signing in (a password, or the identity provider), out, and the
   navigation that shows who is signed in. The token lives in sessionStorage, never a cookie or
   the address. */
import { main, refresh } from './dom.js';
import { served } from './http.js';

const SESSION = 'catalog.session'; // {token, expiresAt, user}
export let session = JSON.parse(sessionStorage.getItem(SESSION) || 'null');

let pendingSignIn = null;

function basicAuth(username, password) {
  const utf8 = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...utf8))}`;
}

/** Whether the service signs in through an identity provider (`GET /sso`), asked once. */
let singleSignOn = null;
function offersSingleSignOn() {
  singleSignOn ??= fetch(served('/sso'), { credentials: 'omit' })
    .then((r) => r.json())
    .then((config) => Boolean(config.issuer))
    .catch(() => false);
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
  await start(await handed.json());
  return true;
}

/** The session a token starts: the user it is read as, kept in the tab, the navigation shown. */
async function start(token) {
  const me = await fetch(served('/users/me'), {
    headers: { Authorization: `Bearer ${token.token}`, Accept: 'application/json' },
    credentials: 'omit',
  });
  session = { token: token.token, expiresAt: token.expiresAt, user: await me.json() };
  sessionStorage.setItem(SESSION, JSON.stringify(session));
  showNav();
}

/** A token for a username and password (`POST /tokens`), or an Error saying why not in words. */
async function tokenFor(username, password) {
  const auth = { Authorization: basicAuth(username, password), Accept: 'application/json' };
  let response;
  try {
    response = await fetch(served('/tokens'), {
      method: 'POST',
      headers: auth,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new Error('The service cannot be reached: try again in a moment.');
  }
  if (response.status === 401) throw new Error('Wrong username or password.');
  if (response.status === 429) throw new Error('Too many attempts: wait a moment and try again.');
  if (!response.ok) throw new Error(`Sign-in failed (${response.status}).`);
  return response.json();
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
      try {
        await start(await tokenFor(form.elements.username.value, form.elements.password.value));
      } catch (failed) {
        document.getElementById('sign-in-reason').textContent = '';
        error.textContent = failed.message;
        return;
      }
      form.reset();
      dialog.close();
      pendingSignIn = null;
      resolve();
    };
  });
  dialog.oncancel = (event) => event.preventDefault(); // no page without a user
  offersSingleSignOn().then((offered) => {
    document.getElementById('sign-in-sso').hidden = !offered;
  });
  if (!dialog.open) dialog.showModal();
  document.getElementById('sign-in-username').focus();
  return pendingSignIn;
}

/** What the signed-in user may create, as the service says (`can` of `/users/me`): nothing
    where it does not say. */
export function may(action) {
  return Boolean(session && session.user.can && session.user.can[action]);
}

export function showNav() {
  const user = session.user;
  document.getElementById('nav').hidden = false;
  document.getElementById('whoami').textContent = `${user.username} (${user.role})`;
  document.getElementById('nav-users').hidden = !may('manageUsers');
  document.getElementById('nav-new').hidden = !may('create');
  document.getElementById('nav-import').hidden = !may('create');
}

export async function signOut() {
  try {
    await fetch(served('/tokens'), {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${session.token}` },
      credentials: 'omit',
    });
  } finally {
    document.getElementById('nav').hidden = true;
    document.getElementById('status').textContent = ''; // what was said to one person is not the next one's
    main.replaceChildren();
    await signIn('Signed out.');
    refresh();
  }
}
