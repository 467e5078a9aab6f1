/* Instances (`#/instances`): what the caller and their teams deployed, each with its blueprint's
   revision (an update available), its profile, what it needs and costs, its delivery and what runs,
   and the actions `can` allows: upgrade (the diff first), releases and rollback, the definition
   as kept, delete. */
import { api, everything } from './api.js';
import { routesView } from './blueprint.js';
import { button, codeView, diffView, el, problemList, refresh, refusedAsShown, row, say, table } from './dom.js';
import { driftInWords, monthly, needs, when } from './units.js';

const ABOUT =
  'What you and your teams deployed. An instance behind its blueprint can be upgraded, its diff shown first; ' +
  'each upgrade and rollback is a release, and any release can be restored.';

/** {id: blueprint} of the blueprints `items` were made from, each read once (null: no longer readable). */
async function blueprintsOf(items) {
  const ids = [...new Set(items.map((i) => i.blueprint))];
  const read = await Promise.all(
    ids.map((id) =>
      api('GET', `/blueprints/${id}`).then(
        ({ data }) => data,
        () => null,
      ),
    ),
  );
  return Object.fromEntries(ids.map((id, n) => [id, read[n]]));
}

/** Where it runs: its delivery and what the last observation found, or that it is kept only. */
function deliveryOf(instance) {
  if (!instance.environment) return 'Not delivered: its definition is kept for you to deploy.';
  const d = instance.delivery;
  const observed = instance.observed ? `observed ${instance.observed.state}` : 'not observed yet';
  const drift = instance.observed ? instance.observed.drift.map(driftInWords) : [];
  const why = [d.error, ...drift].filter(Boolean).join('; ');
  return `${d.state} in ${instance.environment}, release ${d.release}; ${observed}${why ? `: ${why}` : ''}`;
}

/** Upgrade to the blueprint's current revision: a dry run shows the diff, then the upgrade is made
    as it was shown (that revision, the instance as read then: changed since, it is shown again). */
function upgradeAction(instance, latest, out) {
  const path = `/instances/${instance.id}/upgrade`;
  const upgrade = button(`Upgrade to revision ${latest}`, async () => {
    out.replaceChildren();
    try {
      const { etag } = await api('GET', `/instances/${instance.id}`);
      const asShown = { body: { rev: latest }, headers: { 'If-Match': etag } };
      const { data } = await api('POST', `${path}?dryRun=true`, asShown);
      const confirm = button('Upgrade', () => upgradeAsShown(instance, latest, asShown, out), { class: null });
      out.replaceChildren(el('h4', {}, 'What the upgrade changes'), diffView(data.diff), confirm);
    } catch (error) {
      out.replaceChildren(problemList(error));
    }
  });
  return upgrade;
}

/** The upgrade `asShown` (its revision and If-Match). */
async function upgradeAsShown(instance, latest, asShown, out) {
  try {
    await api('POST', `/instances/${instance.id}/upgrade`, asShown);
    say(`${instance.name} upgraded to revision ${latest}.`);
    refresh();
  } catch (error) {
    out.replaceChildren(refusedAsShown(error));
  }
}

/** The instance's releases, newest first, each older one restorable where `can` allows (what the
    service refuses said in `out`). */
async function releasesView(instance, out) {
  const releases = await everything(`/instances/${instance.id}/releases`);
  const restore = (r) =>
    button(
      `Roll back to release ${r.release}`,
      async () => {
        try {
          await api('POST', `/instances/${instance.id}/rollback`, { body: { release: r.release } });
          say(`${instance.name}: release ${r.release} restored.`);
          refresh();
        } catch (error) {
          out.replaceChildren(problemList(error));
        }
      },
      { 'aria-label': `Roll back ${instance.name} to release ${r.release}` },
    );
  const rows = releases.map((r) =>
    row(
      r.release === instance.release ? `${r.release} (current)` : String(r.release),
      String(r.rev),
      `${when(r.at)} by ${r.by}`,
      Object.entries(r.values)
        .map(([k, v]) => `${k}=${v === null ? '***' : v}`)
        .join(', '),
      instance.can.change && r.release !== instance.release ? restore(r) : '',
    ),
  );
  return table(`Releases of ${instance.name}`, ['Release', 'Rev', 'Made', 'Values', ''], rows);
}

/** A part of the card opened on request (`load` makes what it shows, once). */
function opened(title, load) {
  const body = el('div', {});
  const part = el('details', {}, el('summary', {}, title), body);
  part.addEventListener(
    'toggle',
    async () => {
      try {
        body.replaceChildren(await load());
      } catch (error) {
        body.replaceChildren(problemList(error));
      }
    },
    { once: true },
  );
  return part;
}

/** Upgrade (where it is behind) and delete, as `can` allows; what they answer goes to `out`. */
function actionsOf(instance, latest, out) {
  return [
    latest !== null && instance.rev < latest && instance.can.change ? upgradeAction(instance, latest, out) : null,
    instance.can.delete ? deleteAction(instance, out) : null,
  ];
}

/** Delete, once asked again in `out`: what was delivered is taken down where it runs. */
function deleteAction(instance, out) {
  const remove = async () => {
    try {
      await api('DELETE', `/instances/${instance.id}`);
      say(`${instance.name} deleted; its usage is freed.`);
      refresh();
    } catch (error) {
      out.replaceChildren(problemList(error));
    }
  };
  const where = instance.environment ? ` and takes it down in ${instance.environment}` : '';
  const ask = () =>
    out.replaceChildren(
      el('p', {}, `Deleting ${instance.name} frees its usage${where}.`),
      el(
        'div',
        { class: 'actions' },
        button(`Delete ${instance.name}`, remove, { class: null }),
        button('Keep it', () => out.replaceChildren()),
      ),
    );
  return button('Delete', ask, { 'aria-label': `Delete ${instance.name}` });
}

/** Where it comes from and whose it is: its blueprint (a link) and revision, profile, owner, target. */
function origin(instance, blueprint, profile) {
  const from = blueprint
    ? el('a', { href: `#/blueprints/${blueprint.id}` }, blueprint.name || '(unnamed)')
    : 'a blueprint you may no longer read';
  return el(
    'p',
    { class: 'meta' },
    'from ',
    from,
    ` revision ${instance.rev} · profile ${profile ? profile.name : instance.profile} · owner ${instance.owner}`,
    ` · ${instance.target} · since ${when(instance.createdAt)}`,
  );
}

function instanceCard(instance, blueprint, profiles) {
  const out = el('div', { 'aria-live': 'polite' });
  const latest = blueprint ? blueprint.rev : null;
  const behind = latest !== null && instance.rev < latest;
  const badge = behind ? el('span', { class: 'badge warn' }, 'update available') : null;
  return el(
    'li',
    { class: 'card', 'aria-label': instance.name },
    el('div', { class: 'top' }, el('h3', {}, instance.name, ' ', badge)),
    origin(instance, blueprint, profiles[instance.profile]),
    el('p', { class: 'needs' }, needs(instance.requirements)),
    instance.addresses && instance.addresses.length ? routesView(instance.addresses) : null,
    monthly(instance.cost) ? el('p', { class: 'meta cost' }, `costs ${monthly(instance.cost)}`) : null,
    el('p', { class: 'meta' }, deliveryOf(instance)),
    el('div', { class: 'actions' }, actionsOf(instance, latest, out)),
    out,
    opened('Releases', () => releasesView(instance, out)),
    instance.can.readYml
      ? opened('Definition as kept', async () => codeView((await api('GET', `/instances/${instance.id}/yml`)).data))
      : null,
  );
}

export async function instancesPage() {
  const [instances, profiles] = await Promise.all([everything('/instances'), everything('/profiles')]);
  const blueprints = await blueprintsOf(instances);
  const byId = Object.fromEntries(profiles.map((p) => [p.id, p]));
  const shown = instances.length
    ? el(
        'ul',
        { class: 'cards whole', 'aria-label': 'Instances' },
        instances.map((i) => instanceCard(i, blueprints[i.blueprint], byId)),
      )
    : el('p', { class: 'note' }, "No instance you may read: deploy one from a blueprint's Render page.");
  return el('section', {}, el('h1', {}, 'Instances'), el('p', { class: 'note' }, ABOUT), shown);
}
