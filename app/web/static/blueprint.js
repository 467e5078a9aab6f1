/* A blueprint's page (`#/blueprints/ID`): what it needs, its fit to each of the caller's profiles,
   its definition, its history with the changes between any two versions, and restore. */
import { api, everything, isCompose, ourProfiles } from './api.js';
import {
  button,
  codeView,
  diffView,
  el,
  field,
  linkButton,
  problemList,
  refresh,
  row,
  say,
  select,
  table,
  tagList,
} from './dom.js';
import { served } from './http.js';
import { session } from './session.js';
import { AMOUNT, caps, monthly, needs, RESOURCES, when } from './units.js';
import { fitBadge, starButton } from './catalog.js';

const EXPLAIN = {
  unbounded:
    'These containers declare no limit or request for that resource: a profile that caps it counts its container ' +
    'default for each, and without one cannot hold them.',
  unresolved:
    'These variables have no value and no default here, and stand in an amount that is measured: set them ' +
    '(Parameters) to measure it.',
  defaulted: "declare none and count the profile's container default",
  overMax: "over the profile's per-container maximum",
};
const FIT_HEADINGS = ['Resource', 'Required', 'Used of cap', 'Headroom', 'Verdict'];
const FIT_NOTE = "Used: what the profile's instances hold now; headroom: what the cap leaves once this is added too.";
const TARGETS = [
  ['', 'a Docker host (Docker Compose)'],
  ['kubernetes', 'a Kubernetes cluster'],
];

export function requirementsView(requirements) {
  if (!requirements) {
    const why = 'Not measured: the definition is not of a known type (compose, kubernetes), or there is none.';
    return el('p', { class: 'note' }, why);
  }
  const listed = (kind, title) =>
    requirements[kind].length
      ? el(
          'div',
          {},
          el('h3', {}, title),
          el('p', { class: 'note' }, EXPLAIN[kind]),
          el(
            'ul',
            {},
            requirements[kind].map((u) => el('li', {}, u)),
          ),
        )
      : null;
  return el(
    'div',
    {},
    el('p', { class: 'needs' }, needs(requirements)),
    listed('unbounded', 'Unbounded'),
    listed('unresolved', 'Unresolved'),
  );
}

export function fitTable(fit, caption) {
  if (RESOURCES.every((name) => fit.resources[name].required === null))
    return el('p', { class: 'note' }, 'Not measured, so it cannot be fitted.');
  const rows = RESOURCES.map((name) => {
    const r = fit.resources[name];
    const show = name === 'containers' ? String : AMOUNT[name]; // the row says what they count
    const headroom = r.headroom === null ? '—' : r.headroom < 0 ? `−${show(-r.headroom)}` : show(r.headroom);
    const used = r.cap === null ? 'no cap' : `${show(r.used)} of ${show(r.cap)}`;
    const verdict = el('span', { class: `badge ${r.verdict}` }, r.verdict);
    return row(el('th', { scope: 'row' }, name), show(r.required), used, headroom, verdict);
  });
  const notes = RESOURCES.flatMap((name) =>
    ['defaulted', 'overMax']
      .filter((kind) => fit.resources[name][kind].length)
      .map((kind) => {
        const text = `${name}: ${fit.resources[name][kind].join(', ')} — ${EXPLAIN[kind]}`;
        return el('tr', {}, el('td', { colspan: '5', class: 'note' }, text));
      }),
  );
  const shown = table(null, FIT_HEADINGS, [...rows, ...notes], { caption: `${caption}. ${FIT_NOTE}`, class: 'fit' });
  return [shown, podSecurity(fit.podSecurity)];
}

/** What a definition breaks of the profile's Pod Security Standards level: an instance is refused. */
function podSecurity(judged) {
  if (!judged || !judged.violations.length) return null;
  return el(
    'div',
    { class: 'error', role: 'note' },
    el('p', {}, `Pod security (${judged.level}): an instance would be refused for`),
    el(
      'ul',
      {},
      judged.violations.map((v) => el('li', {}, `${v.path}: ${v.control}`)),
    ),
  );
}

/** The fit to each of the caller's profiles, the default first: its fit is asked with no profile
    named, which the service answers with the caller's default. A Compose blueprint is fitted as
    deployed on a Docker host or on a cluster, where its named volumes are claims of 1 GiB. */
async function fitsView(bp) {
  const all = await ourProfiles();
  if (!all.length) {
    const create = el('a', { href: '#/profiles' }, 'create one');
    return el('p', { class: 'note' }, 'You have no profile yet: ', create, ' to see whether this fits.');
  }
  const profiles = [...all.filter((p) => p.defaultProfile), ...all.filter((p) => !p.defaultProfile)];
  if (!(await isCompose(bp.blueprintType))) return el('div', {}, await fitsOn(bp, profiles, ''));
  const shown = el('div', { 'aria-live': 'polite' }, await fitsOn(bp, profiles, ''));
  const target = select(TARGETS, '', { name: 'fitTarget' });
  target.addEventListener('change', async () => shown.replaceChildren(...(await fitsOn(bp, profiles, target.value))));
  const help = 'On a cluster each named volume is a claim of 1 GiB, counted as storage.';
  return el('div', {}, field('Deployed on', target, help), shown);
}

/** The blueprint's fit to each of `profiles` on `target` (empty: its own format). */
async function fitsOn(bp, profiles, target) {
  const query = (p) =>
    new URLSearchParams({ ...(p.defaultProfile ? {} : { profile: p.id }), ...(target ? { target } : {}) }).toString();
  const fitOf = (p) => api('GET', `/blueprints/${bp.id}/fit${query(p) ? `?${query(p)}` : ''}`).then((r) => r.data);
  const fits = await Promise.all(profiles.map(fitOf));
  return profiles.map((p, i) => {
    const name = `${p.name || '(unnamed)'}${p.defaultProfile ? ' (your default)' : ''} `;
    const cost = monthly(fits[i].cost) ? el('p', { class: 'meta cost' }, `would cost ${monthly(fits[i].cost)}`) : null;
    const against = `Against ${p.name || 'the profile'}: ${caps(p.limits)}`;
    return el('div', {}, el('h3', {}, name, fitBadge(fits[i], p.limits)), cost, fitTable(fits[i], against));
  });
}

async function download(bp) {
  const response = await fetch(served(`/blueprints/${bp.id}/yml`), {
    headers: { Authorization: `Bearer ${session.token}` },
    credentials: 'omit',
  });
  if (!response.ok) {
    say(`Download failed (${response.status}).`);
    return;
  }
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
  const rows = versions.map((v, i) => versionRow(bp, v, i, etag));
  const compare = el('button', { type: 'submit', disabled: versions.length < 2 }, 'Show the changes');
  const form = el('form', {}, table(null, ['Rev', 'By', 'When', 'From', 'To', ''], rows), el('p', {}, compare));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    output.replaceChildren(await changesView(bp.id, form.elements.from.value, form.elements.to.value));
  });
  return el('div', {}, form, output);
}

/** A version of the history: who and when, the two ends of a comparison, and Restore. */
function versionRow(bp, v, i, etag) {
  const end = (name, checked, words) =>
    el('input', { type: 'radio', name, value: String(v.rev), checked, 'aria-label': `${words} revision ${v.rev}` });
  const restore =
    bp.can.change && v.rev !== bp.rev
      ? button('Restore', () => restoreTo(bp, v.rev, etag), { 'aria-label': `Restore revision ${v.rev}` })
      : null;
  const [from, to] = [end('from', i === 1, 'Compare from'), end('to', i === 0, 'Compare to')];
  return row(String(v.rev), v.updatedBy, when(v.updatedAt), from, to, restore);
}

export async function changesView(id, from, to) {
  const { data } = await api('GET', `/blueprints/${id}/diff?from=${from}&to=${to}`);
  const changed = Object.entries(data.fields);
  const shown = (value) => (value === null ? '(none)' : JSON.stringify(value));
  const rows = changed.map(([name, change]) =>
    row(el('th', { scope: 'row' }, name), shown(change.from), shown(change.to)),
  );
  return el(
    'section',
    { 'aria-label': 'Changes' },
    el('h3', {}, `Changes from revision ${data.from} to ${data.to}`),
    changed.length
      ? table(null, ['Field', 'From', 'To'], rows)
      : el('p', { class: 'note' }, 'No field but the definition changed.'),
    diffView(data.yml),
  );
}

async function restoreTo(bp, rev, etag) {
  try {
    await api('POST', `/blueprints/${bp.id}/revisions/${rev}/restore`, { headers: { 'If-Match': etag } });
    say(`Revision ${rev} restored.`);
  } catch (error) {
    const moved = 'Someone changed it since this page was loaded: shown again as it is now.';
    say(error.status === 412 ? moved : error.message);
  }
  refresh();
}

/** The instances of a blueprint the caller may read, those behind its current revision marked
    "update available"; those of them the caller may change can be chosen, their upgrade shown
    (each one's diff, what it adds and removes, whether its profile has room) and then made. */
async function instancesView(bp) {
  const items = await everything(`/instances?blueprint=${bp.id}`);
  if (!items.length) return el('p', { class: 'note' }, 'No instance yet: deploy one from the render form.');
  const behind = items.filter((i) => i.rev < bp.rev);
  const chosen = new Set(behind.filter((i) => i.can.change).map((i) => i.id));
  const out = el('div', { 'aria-live': 'polite' });
  const counted = `${items.length} ${items.length === 1 ? 'instance' : 'instances'}, ${behind.length} behind`;
  return el(
    'div',
    {},
    el('p', { class: behind.length ? 'note' : 'ok' }, `${counted} revision ${bp.rev}.`),
    instanceTable(items, { latest: bp.rev, chosen }),
    behind.some((i) => i.can.change) ? upgradeActions(bp, items, chosen, out) : null,
    out,
  );
}

/** Show the upgrade of the chosen instances (a dry run, in `out`), then make it: each one it showed
    upgrading, only as it read it (its ETag), to the revision it showed. */
function upgradeActions(bp, items, chosen, out) {
  const upgrade = el('button', { type: 'button', hidden: true }, 'Upgrade the chosen');
  let shown = {};
  const preview = async () => {
    upgrade.hidden = true;
    try {
      const body = { blueprint: bp.id, behind: true };
      const { data } = await api('POST', '/instances/upgrade?dryRun=true', { body });
      const results = data.results.filter((r) => chosen.has(r.instance));
      const upgrading = results.filter((r) => r.outcome === 'upgraded');
      shown = Object.fromEntries(upgrading.map((r) => [r.instance, { etag: r.etag, rev: r.to }]));
      out.replaceChildren(upgradeReport(results, true));
      upgrade.hidden = !upgrading.length;
    } catch (error) {
      out.replaceChildren(problemList(error));
    }
  };
  upgrade.addEventListener('click', async () => {
    upgrade.hidden = true;
    const refusals = await Promise.all(Object.entries(shown).map(([id, asShown]) => upgradeOne(items, id, asShown)));
    const refused = refusals.filter(Boolean);
    const upgraded = `${refusals.length - refused.length} of ${refusals.length} upgraded.`;
    say(`${upgraded}${refused.length ? ` ${refused.join('; ')}` : ''}`);
    refresh();
  });
  return el('div', { class: 'actions' }, button('Show the upgrade of the chosen', preview), upgrade);
}

/** Upgrade one instance as it was shown (`etag`), to the revision shown: null, or why it was refused. */
function upgradeOne(items, id, { etag, rev }) {
  const why = (error) => (error.status === 412 ? 'it changed since it was shown' : error.message);
  return api('POST', `/instances/${id}/upgrade`, { body: { rev }, headers: { 'If-Match': etag } }).then(
    () => null,
    (error) => `${items.find((i) => i.id === id).name}: ${why(error)}`,
  );
}

/** What an upgrade of many did, or would do: a row per instance, each diff under the table. */
function upgradeReport(results, dryRun) {
  if (!results.length) return el('p', { class: 'note' }, 'None of the chosen is behind any more.');
  const rows = results.map((r) => {
    const outcome = dryRun && r.outcome === 'upgraded' ? 'would upgrade' : r.outcome;
    const cells = [r.name, `${r.from} → ${r.to}`, outcome, r.added.join(', ') || '–', r.removed.join(', ') || '–'];
    const shown = row(...cells, r.problems.join('; ') || '–');
    shown.className = `outcome-${r.outcome === 'upgraded' ? 'created' : r.outcome}`;
    return shown;
  });
  const label = dryRun ? 'What the upgrade would do' : 'What the upgrade did';
  const headings = ['Instance', 'Revision', 'Outcome', 'Adds', 'Removes', 'Why'];
  const diffs = results
    .filter((r) => r.diff)
    .map((r) => el('div', {}, el('h3', {}, `Changes to ${r.name}`), diffView(r.diff)));
  return el('div', {}, table(label, headings, rows, { class: 'report' }), diffs);
}

/** Which service answers where: a URL per route (a host the team's domain gives: "any host"). */
export function routesView(routes) {
  const url = (r) => `${r.tls ? 'https' : 'http'}://${r.host || '(any host)'}${r.path === '/' ? '' : r.path}`;
  return el(
    'ul',
    { class: 'routes' },
    routes.map((r) => el('li', {}, el('code', {}, url(r)), ` → ${r.service}:${r.port}`)),
  );
}

/** Instances as a table: name, revision, what they use, owner; with `latest` (the blueprint's
    revision), those behind it marked, and those in `chosen` (a Set the boxes keep) choosable. */
export function instanceTable(items, { latest = null, chosen = null } = {}) {
  const box = (i) => {
    if (latest === null || i.rev >= latest || !i.can.change) return el('td', {});
    const input = el('input', { type: 'checkbox', 'aria-label': `Choose ${i.name}` });
    input.checked = chosen.has(i.id);
    input.addEventListener('change', () => (input.checked ? chosen.add(i.id) : chosen.delete(i.id)));
    return el('td', {}, input);
  };
  const revision = (i) =>
    latest !== null && i.rev < latest
      ? el('td', {}, `${i.rev} `, el('span', { class: 'badge warn' }, `update to ${latest} available`))
      : el('td', {}, String(i.rev));
  const headings = [...(chosen ? [''] : []), 'Name', 'Rev', 'Needs', 'Owner', 'Since'];
  const rows = items.map((i) =>
    row(...(chosen ? [box(i)] : []), i.name, revision(i), needs(i.requirements), i.owner, when(i.createdAt)),
  );
  return table('Instances', headings, rows);
}

export async function blueprintPage([id]) {
  const { data: bp, etag } = await api('GET', `/blueprints/${id}`);
  const sections = [
    ['Requirements', async () => requirementsView(bp.requirements)],
    ...(bp.routes && bp.routes.length ? [['Routes', async () => routesView(bp.routes)]] : []),
    ['Fit to your profiles', () => fitsView(bp)],
    ['Instances', () => instancesView(bp)],
    ['Definition', async () => (bp.yml === null ? el('p', { class: 'note' }, 'No definition.') : codeView(bp.yml))],
    ['History', () => historyView(bp, etag)],
  ];
  const filled = await Promise.all(sections.map(([, make]) => make()));
  return el(
    'article',
    {},
    el('div', { class: 'top row' }, el('h1', {}, bp.name || '(unnamed)'), starButton(bp)),
    el('p', { class: 'meta' }, facts(bp)),
    tagList(bp.tags),
    bp.description ? el('p', { class: 'desc' }, bp.description) : null,
    el('div', { class: 'actions' }, blueprintActions(bp)),
    sections.map(([title], i) => el('section', { 'aria-label': title }, el('h2', {}, title), filled[i])),
  );
}

/** A blueprint's facts in one line: version, type, who may read it, owner, revision, inactive. */
function facts(bp) {
  const revision = `revision ${bp.rev} by ${bp.updatedBy}, ${when(bp.updatedAt)}`;
  const all = [bp.version && `version ${bp.version}`, bp.blueprintType || 'no type', bp.entitlementType];
  return [...all, `owner ${bp.owner}`, revision, bp.inactive && 'inactive'].filter(Boolean).join(' · ');
}

/** Edit (where `can` allows), render and download (where there is a definition). */
function blueprintActions(bp) {
  if (bp.yml === null)
    return bp.can.change ? el('a', { class: 'button', href: `#/blueprints/${bp.id}/edit` }, 'Edit') : null;
  const hasParameters = bp.parameters && Object.keys(bp.parameters.properties || {}).length;
  return [
    bp.can.change ? el('a', { class: 'button', href: `#/blueprints/${bp.id}/edit` }, 'Edit') : null,
    linkButton(hasParameters ? 'Parameters and render' : 'Render', `#/blueprints/${bp.id}/parameters`),
    button('Download YAML', () => download(bp)),
  ];
}
