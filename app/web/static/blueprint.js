/* A blueprint's page (`#/blueprints/ID`): what it needs, its fit to each of the caller's profiles,
   its definition, its history with the changes between any two versions, and restore. */
import { api, everything } from './api.js';
import { codeView, diffView, el, field, problemList, refresh, say, select } from './dom.js';
import { served } from './http.js';
import { myProfiles, session } from './session.js';
import { AMOUNT, caps, monthly, needs, RESOURCES, when } from './units.js';
import { fitBadge, starButton } from './catalog.js';

const EXPLAIN = {
  unbounded:
    'These containers declare no limit or request for that resource: a profile that caps it counts its container default for each, and without one cannot hold them.',
  unresolved:
    'These variables have no value and no default here, and stand in an amount that is measured: set them (Parameters) to measure it.',
  defaulted: "declare none and count the profile's container default",
  overMax: "over the profile's per-container maximum",
};

export function requirementsView(requirements) {
  if (!requirements)
    return el(
      'p',
      { class: 'note' },
      'Not measured: the definition is not of a known type (compose, kubernetes), or there is none.',
    );
  return el(
    'div',
    {},
    el('p', { class: 'needs' }, needs(requirements)),
    requirements.unbounded.length
      ? el(
          'div',
          {},
          el('h3', {}, 'Unbounded'),
          el('p', { class: 'note' }, EXPLAIN.unbounded),
          el(
            'ul',
            {},
            requirements.unbounded.map((u) => el('li', {}, u)),
          ),
        )
      : null,
    requirements.unresolved.length
      ? el(
          'div',
          {},
          el('h3', {}, 'Unresolved'),
          el('p', { class: 'note' }, EXPLAIN.unresolved),
          el(
            'ul',
            {},
            requirements.unresolved.map((u) => el('li', {}, u)),
          ),
        )
      : null,
  );
}

export function fitTable(fit, caption) {
  if (RESOURCES.every((name) => fit.resources[name].required === null))
    return el('p', { class: 'note' }, 'Not measured, so it cannot be fitted.');
  return el(
    'div',
    { class: 'scroll' },
    el(
      'table',
      { class: 'fit' },
      el(
        'caption',
        { class: 'note' },
        `${caption}. Used: what the profile's instances hold now; headroom: what the cap leaves once this is added too.`,
      ),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ['Resource', 'Required', 'Used of cap', 'Headroom', 'Verdict'].map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        RESOURCES.map((name) => {
          const r = fit.resources[name];
          const show = name === 'containers' ? String : AMOUNT[name]; // the row says what they count
          return el(
            'tr',
            {},
            el('th', { scope: 'row' }, name),
            el('td', {}, show(r.required)),
            el('td', {}, r.cap === null ? 'no cap' : `${show(r.used)} of ${show(r.cap)}`),
            el('td', {}, r.headroom === null ? '—' : r.headroom < 0 ? `−${show(-r.headroom)}` : show(r.headroom)),
            el('td', {}, el('span', { class: `badge ${r.verdict}` }, r.verdict)),
          );
        }),
      ),
      el(
        'tfoot',
        {},
        RESOURCES.flatMap((name) =>
          ['defaulted', 'overMax']
            .filter((kind) => fit.resources[name][kind].length)
            .map((kind) =>
              el(
                'tr',
                {},
                el(
                  'td',
                  { colspan: '5', class: 'note' },
                  `${name}: ${fit.resources[name][kind].join(', ')} — ${EXPLAIN[kind]}`,
                ),
              ),
            ),
        ),
      ),
    ),
    podSecurity(fit.podSecurity),
  );
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
  const all = await everything(myProfiles());
  if (!all.length)
    return el(
      'p',
      { class: 'note' },
      'You have no profile yet: ',
      el('a', { href: '#/profiles' }, 'create one'),
      ' to see whether this fits.',
    );
  const profiles = [...all.filter((p) => p.defaultProfile), ...all.filter((p) => !p.defaultProfile)];
  const fitsOn = async (target) => {
    // none: the blueprint's own format
    const query = (p) =>
      new URLSearchParams({ ...(p.defaultProfile ? {} : { profile: p.id }), ...(target ? { target } : {}) }).toString();
    const fitOf = (p) => api('GET', `/blueprints/${bp.id}/fit${query(p) ? `?${query(p)}` : ''}`).then((r) => r.data);
    const fits = await Promise.all(profiles.map(fitOf));
    return profiles.map((p, i) =>
      el(
        'div',
        {},
        el(
          'h3',
          {},
          `${p.name || '(unnamed)'}${p.defaultProfile ? ' (your default)' : ''} `,
          fitBadge(fits[i], p.limits),
        ),
        monthly(fits[i].cost) ? el('p', { class: 'meta cost' }, `would cost ${monthly(fits[i].cost)}`) : null,
        fitTable(fits[i], `Against ${p.name || 'the profile'}: ${caps(p.limits)}`),
      ),
    );
  };
  if (!/^(docker[-_])?compose$/i.test(bp.blueprintType || '')) return el('div', {}, await fitsOn(''));
  const shown = el('div', { 'aria-live': 'polite' }, await fitsOn(''));
  const target = select(
    [
      ['', 'a Docker host (Docker Compose)'],
      ['kubernetes', 'a Kubernetes cluster'],
    ],
    '',
    { name: 'fitTarget' },
  );
  target.addEventListener('change', async () => shown.replaceChildren(...(await fitsOn(target.value))));
  return el(
    'div',
    {},
    field('Deployed on', target, 'On a cluster each named volume is a claim of 1 GiB, counted as storage.'),
    shown,
  );
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
  const rows = versions.map((v, i) => {
    const from = el('input', {
      type: 'radio',
      name: 'from',
      value: String(v.rev),
      checked: i === 1,
      'aria-label': `Compare from revision ${v.rev}`,
    });
    const to = el('input', {
      type: 'radio',
      name: 'to',
      value: String(v.rev),
      checked: i === 0,
      'aria-label': `Compare to revision ${v.rev}`,
    });
    const restore =
      bp.can.change && v.rev !== bp.rev
        ? el(
            'button',
            {
              type: 'button',
              class: 'quiet',
              'aria-label': `Restore revision ${v.rev}`,
              onclick: () => restoreTo(bp, v.rev, etag),
            },
            'Restore',
          )
        : null;
    return el(
      'tr',
      {},
      el('td', {}, String(v.rev)),
      el('td', {}, v.updatedBy),
      el('td', {}, when(v.updatedAt)),
      el('td', {}, from),
      el('td', {}, to),
      el('td', {}, restore),
    );
  });
  const form = el(
    'form',
    {},
    el(
      'div',
      { class: 'scroll' },
      el(
        'table',
        {},
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Rev', 'By', 'When', 'From', 'To', ''].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el('tbody', {}, rows),
      ),
    ),
    el('p', {}, el('button', { type: 'submit', disabled: versions.length < 2 }, 'Show the changes')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const a = form.elements.from.value;
    const b = form.elements.to.value;
    output.replaceChildren(await changesView(bp.id, a, b));
  });
  return el('div', {}, form, output);
}

export async function changesView(id, from, to) {
  const { data } = await api('GET', `/blueprints/${id}/diff?from=${from}&to=${to}`);
  const changed = Object.entries(data.fields);
  return el(
    'section',
    { 'aria-label': 'Changes' },
    el('h3', {}, `Changes from revision ${data.from} to ${data.to}`),
    changed.length
      ? el(
          'div',
          { class: 'scroll' },
          el(
            'table',
            {},
            el(
              'thead',
              {},
              el(
                'tr',
                {},
                ['Field', 'From', 'To'].map((h) => el('th', { scope: 'col' }, h)),
              ),
            ),
            el(
              'tbody',
              {},
              changed.map(([name, change]) =>
                el(
                  'tr',
                  {},
                  el('th', { scope: 'row' }, name),
                  [change.from, change.to].map((value) =>
                    el('td', {}, value === null ? '(none)' : JSON.stringify(value)),
                  ),
                ),
              ),
            ),
          ),
        )
      : el('p', { class: 'note' }, 'No field but the definition changed.'),
    diffView(data.yml),
  );
}

async function restoreTo(bp, rev, etag) {
  try {
    await api('POST', `/blueprints/${bp.id}/revisions/${rev}/restore`, { headers: { 'If-Match': etag } });
    say(`Revision ${rev} restored.`);
  } catch (error) {
    say(
      error.status === 412 ? 'Someone changed it since this page was loaded: shown again as it is now.' : error.message,
    );
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
  const upgrade = el('button', { type: 'button', hidden: true }, 'Upgrade the chosen');
  let shown = {}; // each chosen instance's ETag as the preview read it: the upgrade changes only that version
  async function preview() {
    upgrade.hidden = true;
    try {
      const { data } = await api('POST', '/instances/upgrade?dryRun=true', {
        body: { blueprint: bp.id, behind: true },
      });
      const results = data.results.filter((r) => chosen.has(r.instance));
      shown = Object.fromEntries(results.map((r) => [r.instance, r.etag]));
      out.replaceChildren(upgradeReport(results, true));
      upgrade.hidden = !results.some((r) => r.outcome === 'upgraded');
    } catch (error) {
      out.replaceChildren(problemList(error));
    }
  }
  upgrade.addEventListener('click', async () => {
    upgrade.hidden = true;
    const refusals = await Promise.all(
      Object.entries(shown).map(([id, etag]) =>
        api('POST', `/instances/${id}/upgrade`, { body: {}, headers: { 'If-Match': etag } }).then(
          () => null,
          (error) =>
            `${items.find((i) => i.id === id).name}: ${error.status === 412 ? 'it changed since it was shown' : error.message}`,
        ),
      ),
    );
    const refused = refusals.filter(Boolean);
    say(
      `${refusals.length - refused.length} of ${refusals.length} upgraded.${refused.length ? ` ${refused.join('; ')}` : ''}`,
    );
    refresh();
  });
  const choose = behind.some((i) => i.can.change)
    ? el(
        'div',
        { class: 'actions' },
        el('button', { type: 'button', class: 'quiet', onclick: preview }, 'Show the upgrade of the chosen'),
        upgrade,
      )
    : null;
  return el(
    'div',
    {},
    el(
      'p',
      { class: behind.length ? 'note' : 'ok' },
      `${items.length} ${items.length === 1 ? 'instance' : 'instances'}, ${behind.length} behind revision ${bp.rev}.`,
    ),
    instanceTable(items, { latest: bp.rev, chosen }),
    choose,
    out,
  );
}

/** What an upgrade of many did, or would do: a row per instance, each diff under the table. */
function upgradeReport(results, dryRun) {
  if (!results.length) return el('p', { class: 'note' }, 'None of the chosen is behind any more.');
  return el(
    'div',
    {},
    el(
      'div',
      { class: 'scroll' },
      el(
        'table',
        { class: 'report', 'aria-label': dryRun ? 'What the upgrade would do' : 'What the upgrade did' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Instance', 'Revision', 'Outcome', 'Adds', 'Removes', 'Why'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el(
          'tbody',
          {},
          results.map((r) =>
            el(
              'tr',
              { class: `outcome-${r.outcome === 'upgraded' ? 'created' : r.outcome}` },
              el('td', {}, r.name),
              el('td', {}, `${r.from} → ${r.to}`),
              el('td', {}, dryRun && r.outcome === 'upgraded' ? 'would upgrade' : r.outcome),
              el('td', {}, r.added.join(', ') || '–'),
              el('td', {}, r.removed.join(', ') || '–'),
              el('td', {}, r.problems.join('; ') || '–'),
            ),
          ),
        ),
      ),
    ),
    results.filter((r) => r.diff).map((r) => el('div', {}, el('h3', {}, `Changes to ${r.name}`), diffView(r.diff))),
  );
}

/** Which service answers where: a URL per route (a host the team's domain gives: "any host"). */
export function routesView(routes) {
  return el(
    'ul',
    { class: 'routes' },
    routes.map((r) =>
      el(
        'li',
        {},
        el('code', {}, `${r.tls ? 'https' : 'http'}://${r.host || '(any host)'}${r.path === '/' ? '' : r.path}`),
        ` → ${r.service}:${r.port}`,
      ),
    ),
  );
}

/** Instances as a table: name, revision, what they use, owner; with `latest` (the blueprint's
    revision), those behind it marked, and those in `chosen` (a Set the boxes keep) choosable. */
export function instanceTable(items, { latest = null, chosen = null } = {}) {
  const box = (i) => {
    if (!chosen || latest === null || i.rev >= latest || !i.can.change) return el('td', {});
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
  return el(
    'div',
    { class: 'scroll' },
    el(
      'table',
      { 'aria-label': 'Instances' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          headings.map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        items.map((i) =>
          el(
            'tr',
            {},
            chosen ? box(i) : null,
            el('td', {}, i.name),
            revision(i),
            el('td', {}, needs(i.requirements)),
            el('td', {}, i.owner),
            el('td', {}, when(i.createdAt)),
          ),
        ),
      ),
    ),
  );
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
  const hasParameters = bp.parameters && Object.keys(bp.parameters.properties || {}).length;
  return el(
    'article',
    {},
    el('div', { class: 'top row' }, el('h1', {}, bp.name || '(unnamed)'), starButton(bp)),
    el(
      'p',
      { class: 'meta' },
      [
        bp.version && `version ${bp.version}`,
        bp.blueprintType || 'no type',
        bp.entitlementType,
        `owner ${bp.owner}`,
        `revision ${bp.rev} by ${bp.updatedBy}, ${when(bp.updatedAt)}`,
        bp.inactive && 'inactive',
      ]
        .filter(Boolean)
        .join(' · '),
    ),
    bp.tags && bp.tags.length
      ? el(
          'ul',
          { class: 'tags', 'aria-label': 'Tags' },
          bp.tags.map((t) => el('li', {}, t)),
        )
      : null,
    bp.description ? el('p', { class: 'desc' }, bp.description) : null,
    el(
      'div',
      { class: 'actions' },
      bp.can.change ? el('a', { class: 'button', href: `#/blueprints/${bp.id}/edit` }, 'Edit') : null,
      bp.yml !== null
        ? el(
            'a',
            { class: 'button quiet', href: `#/blueprints/${bp.id}/parameters` },
            hasParameters ? 'Parameters and render' : 'Render',
          )
        : null,
      bp.yml !== null
        ? el('button', { type: 'button', class: 'quiet', onclick: () => download(bp) }, 'Download YAML')
        : null,
    ),
    sections.map(([title], i) => el('section', { 'aria-label': title }, el('h2', {}, title), filled[i])),
  );
}
