// What the page reads off an answer (app/web/static/http.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ApiError,
  problemsOf,
  progressOf,
} from "../../../app/web/static/http.js";

test("a 422's problems are one [place, message] pair each, a field's messages each their own", () => {
  const error = new ApiError(422, {
    detail: "Invalid",
    errors: { yml: ["line 4: bad", "line 9: worse"], name: "Missing" },
  });
  assert.deepEqual(problemsOf(error), [
    ["yml", "line 4: bad"],
    ["yml", "line 9: worse"],
    ["name", "Missing"],
  ]);
});

test("any other error is its message: the detail, else the title, else the status", () => {
  assert.deepEqual(
    problemsOf(new ApiError(409, { detail: "Taken", title: "Conflict" })),
    [[null, "Taken"]],
  );
  assert.deepEqual(problemsOf(new ApiError(503, { title: "Unavailable" })), [
    [null, "Unavailable"],
  ]);
  assert.deepEqual(problemsOf(new ApiError(502, null)), [[null, "HTTP 502"]]);
  assert.deepEqual(problemsOf(new Error("offline")), [[null, "offline"]]);
});

test("a job's progress, its total unknown until counted", () => {
  assert.equal(
    progressOf("Importing", { done: 120, total: 406 }),
    "Importing: 120 of 406",
  );
  assert.equal(
    progressOf("Importing", { done: 0, total: null }),
    "Importing: 0 of …",
  );
});
