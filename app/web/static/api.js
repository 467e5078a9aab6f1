/* The API with the caller's bearer token: one call, every item of a list, a job followed to its
   end, and what the service serves about itself (`GET /formats`). */
import { ApiError, served } from './http.js';
import { session, signIn } from './session.js';

export const PAGE = 50; // items a list view asks for at once
export const FIT_FETCHES = 6; // fits asked at once: the browser's connections per host
const JOB_POLL_MS = 400;

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
    next = data.next
      ? `${path}${path.includes('?') ? '&' : '?'}limit=200&cursor=${encodeURIComponent(data.next)}`
      : null;
  }
  return items;
}

/** A job the service runs (an import, a sync, an upgrade of many) followed until it ends, each
    step of its progress handed to `progress(job)`; a failed one throws its error. */
export async function followed(job, progress = () => {}) {
  let current = job;
  while (current.state === 'queued' || current.state === 'running') {
    progress(current);
    await new Promise((resolve) => {
      setTimeout(resolve, JOB_POLL_MS);
    });
    ({ data: current } = await api('GET', `/jobs/${current.id}`));
  }
  if (current.state === 'failed') throw new ApiError(409, { detail: current.error });
  return current;
}

/** Whether `type` names a Compose blueprint, by the aliases the service serves (`GET /formats`). */
export async function isCompose(type) {
  const compose = (await formats()).blueprintTypes.find((t) => t.type === 'compose');
  return Boolean(type && compose && compose.aliases.includes(type.toLowerCase()));
}

/** The profiles the caller spends from: their own and their teams' (not every team's, which an
    admin reads too), those the service says they may deploy against (`can.deploy`). */
export async function ourProfiles() {
  const teams = (await everything('/teams')).filter((t) => t.role !== null);
  const owners = [session.user.username, ...teams.map((t) => `team:${t.name}`)];
  const lists = await Promise.all(owners.map((o) => everything(`/profiles?owner=${encodeURIComponent(o)}`)));
  return lists.flat().filter((p) => p.can.deploy);
}

let formatsServed = null;

/** What the service reads, as it serves it (`GET /formats`): the import formats with the folders
    they are read from, the blueprint types with their aliases, the size bounds; read once. The
    page keeps no list of its own. */
export function formats() {
  formatsServed =
    formatsServed ||
    api('GET', '/formats')
      .then(({ data }) => data)
      .catch((error) => {
        formatsServed = null;
        throw error;
      });
  return formatsServed;
}
