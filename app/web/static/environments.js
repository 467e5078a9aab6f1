/* Environments (`#/environments`): where instances run, each with what its last observation found
   (the engine reachable or why not, its instances by state, the projects it runs that the service
   did not deliver) and its instances: each one's delivery, observed state, usage and drift. */
import { everything } from './api.js';
import { el, row, table } from './dom.js';
import { AMOUNT, countedInWords, driftInWords, observedInWords, when } from './units.js';

const ABOUT =
  'Where the service delivers instances, and what it observes there: an instance that runs beyond or beside what ' +
  'was admitted (scaled by hand, a limit changed, a container added) is drifted; an environment that heals ' +
  'delivers it again.';

/** An instance's delivery in words: its state and release, and why it failed. */
function deliveryOf(instance) {
  const delivery = instance.delivery;
  const stands = `${delivery.state}, release ${delivery.release}`;
  return delivery.error ? `${stands}: ${delivery.error}` : stands;
}

/** What an instance's observed containers may take, in words. */
function usageOf(observed) {
  if (!observed) return '—';
  const usage = observed.usage;
  return [AMOUNT.containers(usage.containers), AMOUNT.memory(usage.memoryBytes), AMOUNT.cpu(usage.cpuMillis)].join(
    ', ',
  );
}

/** An instance's row, and under it a row of its drift in words where it drifted. */
function instanceRows(instance) {
  const observed = instance.observed;
  const state = observed ? observed.state : 'not observed yet';
  const badge = el(
    'span',
    { class: `badge${['drifted', 'missing', 'degraded'].includes(state) ? ' warn' : ''}` },
    state,
  );
  const main = row(el('th', { scope: 'row' }, instance.name), deliveryOf(instance), badge, usageOf(observed));
  if (!observed || !observed.drift.length) return [main];
  const drift = el(
    'ul',
    { class: 'drift', 'aria-label': `Drift of ${instance.name}` },
    observed.drift.map((d) => el('li', {}, driftInWords(d))),
  );
  return [main, el('tr', {}, el('td', { colspan: '4' }, drift))];
}

function unmanagedTable(environment, unmanaged) {
  const rows = unmanaged.map((project) =>
    row(
      el('th', { scope: 'row' }, project.project),
      project.containers
        .map((c) => `${c.name} (${c.state}, ${AMOUNT.memory(c.memoryBytes)}, ${AMOUNT.cpu(c.cpuMillis)})`)
        .join('; '),
    ),
  );
  return table(`Unmanaged in ${environment.name}`, ['Project', 'Containers (state, memory, cpu)'], rows, {
    caption: 'Running there, not delivered by the service',
  });
}

function environmentCard(environment, instances) {
  const state = environment.state;
  const facts = [environment.kind, `observed every ${environment.interval} s`, environment.heal ? 'heals' : null];
  const where = environment.endpoint || environment.url;
  const observed = el('p', { class: state && !state.reachable ? 'error' : 'note' }, observedInWords(state));
  const shown = instances.length
    ? table(
        `Instances in ${environment.name}`,
        ['Instance', 'Delivery', 'Observed', 'Running with'],
        instances.flatMap(instanceRows),
        { caption: state ? countedInWords(state.instances) : null },
      )
    : el('p', { class: 'note' }, 'No instance is delivered here.');
  const unmanaged =
    state && state.unmanaged && state.unmanaged.length ? unmanagedTable(environment, state.unmanaged) : null;
  return el(
    'li',
    { class: 'card', 'aria-label': environment.name },
    el('h3', {}, environment.name),
    el('p', { class: 'meta' }, [...facts, where && `at ${where}`].filter(Boolean).join(' · ')),
    observed,
    shown,
    unmanaged,
  );
}

export async function environmentsPage() {
  const [environments, instances] = await Promise.all([everything('/environments'), everything('/instances')]);
  const shown = environments.length
    ? el(
        'ul',
        { class: 'cards whole', 'aria-label': 'Environments' },
        environments.map((e) =>
          environmentCard(
            e,
            instances.filter((i) => i.environment === e.name),
          ),
        ),
      )
    : el('p', { class: 'note' }, 'No environment you may read: an admin registers them, and a profile names them.');
  const last = environments
    .map((e) => e.state && e.state.at)
    .filter(Boolean)
    .sort()
    .pop();
  return el(
    'section',
    {},
    el('h1', {}, 'Environments'),
    el('p', { class: 'note' }, ABOUT),
    last ? el('p', { class: 'note' }, `Last observed ${when(last)}; reload to see the next observation.`) : null,
    shown,
  );
}
