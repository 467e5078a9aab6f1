/* Amounts in words, as the page shows them: the units of memory, CPU and containers, what a
   blueprint needs, a profile's caps, what something costs. Pure: no DOM, tested with Node's own
   runner. */

export const RESOURCES = ['memory', 'cpu', 'containers', 'storage'];
// a resource -> its key in `requirements`, a profile's `limits` and its `usage`
export const RESOURCE_KEYS = {
  memory: 'memoryBytes',
  cpu: 'cpuMillis',
  containers: 'containers',
  storage: 'storageBytes',
};

function number(value, digits = 2) {
  return String(Number(value.toFixed(digits)));
}

function bytes(n) {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let value = n;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i += 1;
  }
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
  const parts = [
    containers(requirements.containers),
    amount('memory', requirements.memoryBytes, bytes),
    amount('cpu', requirements.cpuMillis, cpus),
  ];
  if (requirements.storageBytes) parts.push(`${bytes(requirements.storageBytes)} storage`);
  return parts.join(', ');
}

/** How a fit used the profile's container defaults, in words ("with the profile's default of
    256 MiB for 3 containers"), or null where no container took one. */
export function defaultsApplied(fit, limits) {
  const defaults = (limits && limits.containerDefaults) || {};
  const parts = [
    ['memory', 'memoryBytes'],
    ['cpu', 'cpuMillis'],
  ]
    .filter(([name]) => fit.resources && fit.resources[name].defaulted.length)
    .map(([name, key]) => {
      const count = containers(fit.resources[name].defaulted.length);
      return defaults[key] === null || defaults[key] === undefined
        ? `its ${name} default for ${count}`
        : `${AMOUNT[name](defaults[key])} for ${count}`;
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
  for (const [field, words] of [
    ['containerDefaults', 'a container declaring none counts'],
    ['containerMax', 'at most per container'],
  ]) {
    const given = limits[field] || {};
    const amounts = [
      given.memoryBytes ? bytes(given.memoryBytes) : null,
      given.cpuMillis ? cpus(given.cpuMillis) : null,
    ].filter(Boolean);
    if (amounts.length) parts.push(`${words} ${amounts.join(' and ')}`);
  }
  return parts.length ? parts.join(', ') : 'No caps';
}

/** What something costs a month (`{monthly, currency}`), or null where nothing is priced. */
export function monthly(cost) {
  return cost && cost.monthly !== null && cost.monthly !== undefined
    ? `${cost.monthly.toFixed(2)} ${cost.currency} a month`
    : null;
}

export function when(iso) {
  return new Date(iso).toLocaleString();
}

// A drift's amount by the last step of its path: what the engine holds, in words
const HELD = { memoryBytes: 'memory', cpuMillis: 'cpu', containers: 'containers' };

/** One drift (`{path, admitted, observed, container}`) in words: a service beside the render, or an
    amount a service runs beyond or beside what was admitted (`null`: no limit). */
export function driftInWords(drift) {
  const at = drift.path.split('.');
  if (drift.admitted === null && typeof drift.observed === 'object' && drift.observed !== null) {
    return `${at.slice(1).join('.')}: not in what was admitted, ${containers(drift.observed.containers)} running beside it`;
  }
  const resource = HELD[at[at.length - 1]];
  if (!resource) {
    // a file of a git environment's folder: admitted and observed are its contents' digests
    const how = drift.admitted === null ? 'added' : drift.observed === null ? 'removed' : 'changed';
    return `${drift.path}: ${how} in the repository`;
  }
  const amount = (value) => (value === null ? 'no limit' : AMOUNT[resource](value));
  const where = drift.container ? ` (${drift.container})` : '';
  return `${at.slice(1).join('.')}: admitted ${amount(drift.admitted)}, runs with ${amount(drift.observed)}${where}`;
}

/** What an environment's last observation found, in words: reachable or why not, and its engine. */
export function observedInWords(state) {
  if (!state) return 'Not observed yet';
  if (!state.reachable) return `Unreachable at ${when(state.at)}: ${state.error}`;
  const engine = state.engine || {};
  const size = [engine.version && `Docker ${engine.version}`, cpus(engine.cpus * 1000), bytes(engine.memoryBytes)];
  return `Reachable at ${when(state.at)}: ${size.filter(Boolean).join(', ')}`;
}

/** An environment's instances by state (`{running: 2, drifted: 1}`), in words. */
export function countedInWords(instances) {
  const parts = Object.entries(instances || {}).map(([state, n]) => `${n} ${state}`);
  return parts.length ? parts.join(', ') : 'No instance';
}
