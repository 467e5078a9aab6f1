// What the Import page reads off the files a person chooses (app/web/static/catalogs.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  chosenFolder,
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

/** Files of a chosen folder ({path: text}) as `chosenFolder` gives them; a file whose text is null
    must not be read (a .git pack, a logo: nothing a catalog uses). */
const chosenOf = (texts) =>
  Object.entries(texts).map(([path, text]) => ({
    path,
    file: {
      text: async () => {
        if (text === null) throw new Error(`${path} was read`);
        return text;
      },
    },
  }));

test("a chosen folder: its name, and its files by their path from it, none read", () => {
  const read = () => {
    throw new Error("read");
  };
  const files = [
    { name: "a.yml", webkitRelativePath: "catalog/stacks/a.yml", text: read },
    { name: "README.md", webkitRelativePath: "catalog/README.md", text: read },
  ];
  const chosen = chosenFolder(files);
  assert.equal(chosen.top, "catalog");
  assert.deepEqual(
    chosen.files.map((f) => [f.path, f.file]),
    [
      ["stacks/a.yml", files[0]],
      ["README.md", files[1]],
    ],
  );
  assert.deepEqual(chosenFolder([]), { top: "", files: [] });
});

test("a Portainer catalog's stack files: those it names, found in the chosen folder, and only those read", async () => {
  const catalog = JSON.stringify({
    templates: [
      { repository: { stackfile: "stacks/web/docker-compose.yml" } },
      { repository: { stackfile: "gone.yml" } },
      {},
    ],
  });
  const chosen = chosenOf({
    "stacks/web/docker-compose.yml": "services: {}",
    "stacks/other.yml": null,
    ".git/objects/pack/pack-1.pack": null,
  });
  assert.deepEqual(await stackFiles(catalog, chosen), {
    "stacks/web/docker-compose.yml": "services: {}",
  });
  assert.deepEqual(await stackFiles("not json", chosen), {});
});

test("a checkout of Dokploy: a template per folder holding its Compose file, other files beside it", async () => {
  const chosen = chosenOf({
    "blueprints/ghost/docker-compose.yml": "ghost",
    "blueprints/ghost/template.toml": "toml",
    "blueprints/ghost/logo.svg": null,
    "blueprints/half/template.toml": "no compose",
    "README.md": null,
  });
  assert.deepEqual(
    await platformCatalog(DOKPLOY, chosen, "templates", "", null),
    {
      ghost: { "docker-compose.yml": "ghost", "template.toml": "toml" },
    },
  );
});

test("one Dokploy template's own folder is named after the folder chosen", async () => {
  const chosen = chosenOf({ "docker-compose.yml": "ghost" });
  assert.deepEqual(await platformCatalog(DOKPLOY, chosen, "ghost", "", null), {
    ghost: { "docker-compose.yml": "ghost" },
  });
});

test("a Coolify checkout: a template per YAML file below its folder, named by the file", async () => {
  const chosen = chosenOf({
    "templates/compose/umami.yaml": "umami",
    "templates/compose/n8n.yml": "n8n",
    "templates/compose/notes.txt": null,
    "other/thing.yml": null,
    ".git/HEAD": null,
  });
  assert.deepEqual(
    await platformCatalog(COOLIFY, chosen, "coolify", "", null),
    {
      umami: "umami",
      n8n: "n8n",
    },
  );
});

test("one template pasted or chosen as a file, where no folder is chosen", async () => {
  assert.deepEqual(
    await platformCatalog(
      COOLIFY,
      [],
      "",
      "services:\n  vault:\n    image: v\n",
      "vaultwarden.yaml",
    ),
    { vaultwarden: "services:\n  vault:\n    image: v\n" },
  );
  assert.deepEqual(
    await platformCatalog(
      COOLIFY,
      [],
      "",
      "services:\n  # a note\n  vault:\n    image: v\n",
      null,
    ),
    { vault: "services:\n  # a note\n  vault:\n    image: v\n" },
  );
  assert.deepEqual(await platformCatalog(COOLIFY, [], "", "  ", null), {});
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
