/* What the Import page reads off the files a person chooses, without the DOM (tested with Node's
   own runner): a Portainer catalog's stack files, and a platform's catalog from a folder or one
   pasted template, as `bpctl import` reads them. */

/** A chosen folder: its name (`top`) and its files as [{path from its top, file}], none read yet:
    what a catalog uses of them is read when it is sent, so a checkout of a whole repository (its
    .git included) costs only its templates. `files`: a FileList or File objects, as a folder input
    gives them. */
export function chosenFolder(files) {
  const chosen = [...files];
  const top = chosen.length ? (chosen[0].webkitRelativePath || '').split('/')[0] : '';
  const inFolder = (f) => (f.webkitRelativePath || f.name).split('/').slice(1).join('/');
  return { top, files: chosen.map((file) => ({ path: inFolder(file), file })) };
}

/** [[path, text]] of the chosen files given, read at once. */
function read(chosen) {
  return Promise.all(chosen.map(async ({ path, file }) => [path, await file.text()]));
}

/** The stack files a Portainer catalog names ({path: text}), read from the files of a chosen folder
    (a checkout of the catalog's repository): each path the catalog names, from the folder's top. */
export async function stackFiles(catalogText, chosen) {
  let catalog;
  try {
    catalog = JSON.parse(catalogText);
  } catch {
    return {};
  }
  const named = new Set((catalog.templates || []).map((t) => t.repository && t.repository.stackfile).filter(Boolean));
  return Object.fromEntries(await read(chosen.filter((f) => named.has(f.path))));
}

/** A platform's catalog ({key: template}) from the files of a chosen folder (a checkout of the
    platform's repository, its templates' folder, or one Dokploy template's folder; `top` is the
    chosen folder's name), else the one template pasted or chosen as a file (`text`, named `name`).
    `layout` is how the service reads the platform's folder (`GET /formats`). */
export async function platformCatalog(layout, chosen, top, text, name) {
  const below = `${layout.folder}/`;
  const inCatalog = chosen.some((f) => f.path.startsWith(below))
    ? chosen.filter((f) => f.path.startsWith(below))
    : chosen;
  const found = {};
  if (layout.marker) {
    // a folder per template, the marker its Compose file
    const used = inCatalog.filter((f) => layout.files.includes(f.path.split('/').pop()));
    for (const [path, content] of await read(used)) {
      const parts = path.split('/');
      const base = parts.pop();
      const key = parts.length ? parts[parts.length - 1] : top;
      (found[key] = found[key] || {})[base] = content;
    }
    return Object.fromEntries(Object.entries(found).filter(([, files]) => files[layout.marker] !== undefined));
  }
  for (const [path, content] of await read(inCatalog.filter((f) => /\.ya?ml$/.test(f.path))))
    found[
      path
        .split('/')
        .pop()
        .replace(/\.ya?ml$/, '')
    ] = content;
  if (!Object.keys(found).length && text.trim()) found[(name || pastedName(text)).replace(/\.ya?ml$/, '')] = text;
  return found;
}

/** The name of a pasted template, which has no file name: a CapRover app's `displayName`, else
    the first service its Compose file declares (as its platform names the file after it). */
export function pastedName(text) {
  const display = /^\s*displayName:\s*['"]?([^'"\n]+?)['"]?\s*$/m.exec(text);
  if (display) return display[1].toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
  const service = /^services:\s*\n(?:\s*#.*\n)*\s+([A-Za-z0-9._-]+):/m.exec(text);
  return service ? service[1] : 'template';
}
