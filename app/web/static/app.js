/* The catalog's web page: a client of the public API, nothing more. Each view is a function of the
   URL's hash (`#/path?filters`), so every view can be bookmarked and shared; this module routes
   to the views (a module each) and has the caller sign in first. */
import { el, main, problemList } from './dom.js';
import { session, showNav, signedInThroughProvider, signIn, signOut } from './session.js';
import { catalog } from './catalog.js';
import { blueprintPage } from './blueprint.js';
import { parametersPage } from './parameters.js';
import { editor } from './editor.js';
import { importPage } from './import.js';
import { profilesPage, usersPage } from './accounts.js';
import { sourcesPage } from './sources.js';
import { environmentsPage } from './environments.js';
import { instancesPage } from './instances.js';
import { teamsPage } from './teams.js';

// [path, view, title, the navigation link it is under]
const ROUTES = [
  [/^\/$/, catalog, 'Catalog', '#/'],
  [/^\/new$/, () => editor(), 'New blueprint', '#/new'],
  [/^\/blueprints\/([0-9a-f]{24})$/, blueprintPage, 'Blueprint', '#/'],
  [/^\/blueprints\/([0-9a-f]{24})\/edit$/, editor, 'Edit blueprint', '#/'],
  [/^\/blueprints\/([0-9a-f]{24})\/parameters$/, parametersPage, 'Render', '#/'],
  [/^\/import$/, importPage, 'Import', '#/import'],
  [/^\/instances$/, instancesPage, 'Instances', '#/instances'],
  [/^\/profiles$/, profilesPage, 'Profiles', '#/profiles'],
  [/^\/teams$/, teamsPage, 'Teams', '#/teams'],
  [/^\/sources$/, sourcesPage, 'Sources', '#/sources'],
  [/^\/environments$/, environmentsPage, 'Environments', '#/environments'],
  [/^\/users$/, usersPage, 'Users', '#/users'],
];

/** The navigation link `href` marked as the page a person is on (none where nothing matched). */
function markCurrent(href) {
  for (const link of document.querySelectorAll('#nav a')) {
    if (link.getAttribute('href') === href) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

let shownRoute = 0;
async function route() {
  const mine = ++shownRoute;
  const [path, query = ''] = (location.hash.slice(1) || '/').split('?');
  const found = ROUTES.map(([pattern, ...rest]) => [pattern.exec(path), ...rest]).find(([match]) => match);
  markCurrent(found && found[3]);
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
    window.scrollTo(0, 0); // a new view opens at its top, the navigation bar in sight
    main.focus({ preventScroll: true });
  } catch (error) {
    if (mine !== shownRoute) return;
    main.replaceChildren(
      el('h1', {}, error.status === 404 ? 'Not found' : 'Something went wrong'),
      problemList(error),
      el('p', {}, el('a', { href: '#/' }, 'Back to the catalog')),
    );
  } finally {
    if (mine === shownRoute) main.removeAttribute('aria-busy');
  }
}

document.getElementById('sign-out').addEventListener('click', signOut);
window.addEventListener('hashchange', route);
(async () => {
  if (!(await signedInThroughProvider())) {
    // back from the identity provider, or not
    if (!session || Date.parse(session.expiresAt) <= Date.now()) await signIn();
    else showNav();
  }
  route();
})();
