// The page's amounts in words (app/web/static/units.js), as a person reads them on the page.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  AMOUNT,
  caps,
  defaultsApplied,
  monthly,
  needs,
  driftInWords,
  observedInWords,
  countedInWords,
} from "../../../app/web/static/units.js";

const GiB = 2 ** 30;
const MiB = 2 ** 20;

test("amounts are written in the largest binary unit, trailing zeros dropped", () => {
  assert.equal(AMOUNT.memory(1.5 * GiB), "1.5 GiB");
  assert.equal(AMOUNT.memory(512 * MiB), "512 MiB");
  assert.equal(AMOUNT.memory(1023), "1023 B");
  assert.equal(AMOUNT.storage(3 * 2 ** 50), "3 PiB");
  assert.equal(AMOUNT.memory(null), "—");
});

test("CPU is in cores, one of them singular; containers counted", () => {
  assert.equal(AMOUNT.cpu(1000), "1 CPU");
  assert.equal(AMOUNT.cpu(250), "0.25 CPU");
  assert.equal(AMOUNT.cpu(2500), "2.5 CPUs");
  assert.equal(AMOUNT.cpu(1), "0.001 CPU");
  assert.equal(AMOUNT.containers(1), "1 container");
  assert.equal(AMOUNT.containers(0), "0 containers");
});

test("what a blueprint needs: an amount some container leaves undeclared is a floor", () => {
  const requirements = {
    containers: 3,
    memoryBytes: 512 * MiB,
    cpuMillis: 0,
    storageBytes: GiB,
    unbounded: [],
  };
  assert.equal(
    needs(requirements),
    "3 containers, 512 MiB, 0 CPU, 1 GiB storage",
  );
  const open = {
    ...requirements,
    unbounded: ["services.web: memory", "services.web: cpu"],
  };
  assert.equal(
    needs(open),
    "3 containers, at least 512 MiB, CPU undeclared, 1 GiB storage",
  );
  assert.equal(needs(null), "Not measured (no definition of a known type)");
});

test("a profile's caps: only those set, then its defaults and maximum per container", () => {
  const limits = {
    memoryBytes: 2 * GiB,
    cpuMillis: null,
    containers: 5,
    storageBytes: null,
    containerDefaults: { memoryBytes: 256 * MiB, cpuMillis: null },
    containerMax: { memoryBytes: null, cpuMillis: 2000 },
  };
  assert.equal(
    caps(limits),
    "2 GiB memory, 5 containers, a container declaring none counts 256 MiB, at most per container 2 CPUs",
  );
  assert.equal(
    caps({
      memoryBytes: null,
      cpuMillis: null,
      containers: null,
      storageBytes: null,
    }),
    "No caps",
  );
});

test("a fit says which containers took the profile's defaults", () => {
  const fit = {
    resources: { memory: { defaulted: ["a", "b"] }, cpu: { defaulted: [] } },
  };
  const limits = { containerDefaults: { memoryBytes: 256 * MiB } };
  assert.equal(
    defaultsApplied(fit, limits),
    "with the profile's default of 256 MiB for 2 containers",
  );
  const none = {
    resources: { memory: { defaulted: [] }, cpu: { defaulted: [] } },
  };
  assert.equal(defaultsApplied(none, limits), null);
});

test("a cost is written to the cent with its currency, nothing where nothing is priced", () => {
  assert.equal(
    monthly({ monthly: 15.2, currency: "EUR" }),
    "15.20 EUR a month",
  );
  assert.equal(monthly({ monthly: null, currency: "EUR" }), null);
  assert.equal(monthly(null), null);
});

test("a drift says what was admitted and what runs, in the page's units", () => {
  const raised = {
    path: "services.web.memoryBytes",
    admitted: 64 * MiB,
    observed: 128 * MiB,
    container: "shop-web-1",
  };
  assert.equal(
    driftInWords(raised),
    "web.memoryBytes: admitted 64 MiB, runs with 128 MiB (shop-web-1)",
  );
  const removed = {
    path: "services.web.cpuMillis",
    admitted: 250,
    observed: null,
    container: "shop-web-1",
  };
  assert.equal(
    driftInWords(removed),
    "web.cpuMillis: admitted 0.25 CPU, runs with no limit (shop-web-1)",
  );
  const scaled = { path: "services.web.containers", admitted: 1, observed: 3 };
  assert.equal(
    driftInWords(scaled),
    "web.containers: admitted 1 container, runs with 3 containers",
  );
  const beside = {
    path: "services.debug",
    admitted: null,
    observed: { containers: 1 },
  };
  assert.equal(
    driftInWords(beside),
    "debug: not in what was admitted, 1 container running beside it",
  );
});

test("a git environment's drift names the file changed, removed or added", () => {
  const changed = {
    path: "shop/deployment-web.yaml",
    admitted: "sha256:0a",
    observed: "sha256:1b",
  };
  assert.equal(
    driftInWords(changed),
    "shop/deployment-web.yaml: changed in the repository",
  );
  assert.equal(
    driftInWords({ ...changed, observed: null }),
    "shop/deployment-web.yaml: removed in the repository",
  );
  assert.equal(
    driftInWords({ ...changed, admitted: null }),
    "shop/deployment-web.yaml: added in the repository",
  );
});

test("an environment's observation and counts in words", () => {
  assert.equal(observedInWords(null), "Not observed yet");
  const away = {
    reachable: false,
    at: "2026-12-02T10:00:00Z",
    error: "The engine did not answer",
  };
  assert.match(
    observedInWords(away),
    /^Unreachable at .+: The engine did not answer$/,
  );
  const seen = {
    reachable: true,
    at: "2026-12-02T10:00:00Z",
    engine: { version: "20.10.24", cpus: 2, memoryBytes: 4 * GiB },
  };
  assert.match(
    observedInWords(seen),
    /^Reachable at .+: Docker 20\.10\.24, 2 CPUs, 4 GiB$/,
  );
  assert.equal(
    countedInWords({ running: 2, drifted: 1 }),
    "2 running, 1 drifted",
  );
  assert.equal(countedInWords({}), "No instance");
});
