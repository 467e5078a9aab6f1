// What the editor reads off what is typed (app/web/static/drafts.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { declared, lineOf, list } from "../../../app/web/static/drafts.js";

const COMPOSE = `services:
  web:
    image: nginx
    ports:
      - "80:80"
  db:
    image: postgres
    environment:
      POSTGRES_PASSWORD: x
`;

test("a problem's line: the one its message states, else the one its place names", () => {
  assert.equal(
    lineOf(COMPOSE, "services.db", "line 4: mapping values are not allowed"),
    4,
  );
  assert.equal(lineOf(COMPOSE, "services.db.image", "Must be a string."), 7);
  assert.equal(lineOf(COMPOSE, "services.web.ports.0", "Invalid port."), 4);
  assert.equal(
    lineOf(COMPOSE, "services.db.environment.POSTGRES_PASSWORD", "Too short."),
    9,
  );
});

test("a place the text does not hold names the deepest line it found, none without a place", () => {
  assert.equal(lineOf(COMPOSE, "services.cache.image", "Unknown."), 1);
  assert.equal(lineOf(COMPOSE, null, "Something."), null);
});

test("a comma-separated field: names trimmed, empty ones dropped", () => {
  assert.deepEqual(list(" alice, bob ,,carol, "), ["alice", "bob", "carol"]);
  assert.deepEqual(list(""), []);
});

test("declaring the variables keeps what is declared and adds only what is not", () => {
  const current = {
    type: "object",
    properties: { PORT: { type: "integer", default: 8080 } },
    required: ["PORT"],
  };
  const proposed = {
    type: "object",
    properties: {
      PORT: { type: "string" },
      TAG: { type: "string", default: "latest" },
      KEY: { type: "string" },
    },
    required: ["PORT", "KEY"],
  };
  const { merged, added } = declared(current, proposed);
  assert.deepEqual(added, ["TAG", "KEY"]);
  assert.deepEqual(merged.properties.PORT, { type: "integer", default: 8080 });
  assert.deepEqual(merged.required, ["PORT", "KEY"]);
  assert.deepEqual(declared(null, proposed).merged.required, ["PORT", "KEY"]);
  assert.deepEqual(declared(current, null).added, []);
});
