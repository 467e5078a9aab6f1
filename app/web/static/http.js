/* What a call of the API answers, read without the DOM: the address of a path, the error a
   problem body becomes and its problems, a job's progress. */

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
