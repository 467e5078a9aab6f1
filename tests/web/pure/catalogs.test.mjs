// What the Import page reads off the files a person chooses (app/web/static/catalogs.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  folderFiles,
  pastedName,
  platformCatalog,
  stackFiles,
} from "../../../app/web/static/catalogs.js";

const DOKPLOY = {
  folder: "blueprints",
  marker: "docker-compose.yml",
  files: ["docker-compose.yml", "template.toml"],
};
const COOLIFY = {
  folder: "templates/compose",
  marker: null,
  files: ["*.yml", "*.yaml"],
};

test("a Portainer catalog's stack files: those it names, found in the chosen folder", () => {
  const catalog = JSON.stringify({
    templates: [
      { repository: { stackfile: "stacks/web/docker-compose.yml" } },
      { repository: { stackfile: "gone.yml" } },
      {},
    ],
  });
  const chosen = [
    { path: "stacks/web/docker-compose.yml", text: "services: {}" },
    { path: "stacks/other.yml", text: "x" },
  ];
  assert.deepEqual(stackFiles(catalog, chosen), {
    "stacks/web/docker-compose.yml": "services: {}",
  });
  assert.deepEqual(stackFiles("not json", chosen), {});
});

test("a checkout of Dokploy: a template per folder holding its Compose file, other files beside it", () => {
  const chosen = [
    { path: "blueprints/ghost/docker-compose.yml", text: "ghost" },
    { path: "blueprints/ghost/template.toml", text: "toml" },
    { path: "blueprints/ghost/logo.svg", text: "<svg/>" },
    { path: "blueprints/half/template.toml", text: "no compose" },
    { path: "README.md", text: "readme" },
  ];
  assert.deepEqual(platformCatalog(DOKPLOY, chosen, "templates", "", null), {
    ghost: { "docker-compose.yml": "ghost", "template.toml": "toml" },
  });
});

test("one Dokploy template's own folder is named after the folder chosen", () => {
  const chosen = [{ path: "docker-compose.yml", text: "ghost" }];
  assert.deepEqual(platformCatalog(DOKPLOY, chosen, "ghost", "", null), {
    ghost: { "docker-compose.yml": "ghost" },
  });
});

test("a Coolify checkout: a template per YAML file below its folder, named by the file", () => {
  const chosen = [
    { path: "templates/compose/umami.yaml", text: "umami" },
    { path: "templates/compose/n8n.yml", text: "n8n" },
    { path: "templates/compose/notes.txt", text: "x" },
    { path: "other/thing.yml", text: "not the catalog" },
  ];
  assert.deepEqual(platformCatalog(COOLIFY, chosen, "coolify", "", null), {
    umami: "umami",
    n8n: "n8n",
  });
});

test("one template pasted or chosen as a file, where no folder is chosen", () => {
  assert.deepEqual(
    platformCatalog(
      COOLIFY,
      [],
      "",
      "services:\n  vault:\n    image: v\n",
      "vaultwarden.yaml",
    ),
    {
      vaultwarden: "services:\n  vault:\n    image: v\n",
    },
  );
  assert.deepEqual(
    platformCatalog(
      COOLIFY,
      [],
      "",
      "services:\n  # a note\n  vault:\n    image: v\n",
      null,
    ),
    {
      vault: "services:\n  # a note\n  vault:\n    image: v\n",
    },
  );
  assert.deepEqual(platformCatalog(COOLIFY, [], "", "  ", null), {});
});

test("a pasted template is named by a CapRover app's displayName, else its first service", () => {
  assert.equal(
    pastedName(
      "captainVersion: 4\ncaproverOneClickApp:\n  displayName: 'Ackee Analytics'\n",
    ),
    "ackee-analytics",
  );
  assert.equal(
    pastedName(
      "services:\n  web:\n    image: nginx\n  db:\n    image: postgres\n",
    ),
    "web",
  );
  assert.equal(pastedName("kind: Deployment\n"), "template");
});

test("a chosen folder's files: their paths from its top, once every one is read", async () => {
  let later;
  const slow = new Promise((done) => {
    later = done;
  });
  const chosen = [
    {
      name: "a.yml",
      webkitRelativePath: "catalog/stacks/a.yml",
      text: async () => "services: {}",
    },
    {
      name: "README.md",
      webkitRelativePath: "catalog/README.md",
      text: () => slow,
    },
  ];
  let read = null;
  const reading = folderFiles(chosen).then((found) => {
    read = found;
  });
  await new Promise((done) => setTimeout(done, 10));
  assert.equal(read, null); // one file is still being read
  later("# Catalog");
  await reading;
  assert.deepEqual(read, {
    top: "catalog",
    files: [
      { path: "stacks/a.yml", text: "services: {}" },
      { path: "README.md", text: "# Catalog" },
    ],
  });
  assert.deepEqual(await folderFiles([]), { top: "", files: [] });
});
