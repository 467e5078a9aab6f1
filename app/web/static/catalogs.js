/* What the Import page reads off the files a person chooses, without the DOM (tested with Node's
   own runner): a Portainer catalog's stack files, and a platform's catalog from a folder or one
   pasted template, as `bpctl import` reads them. */

/** The files of a chosen folder as {top: the folder's name, files: [{path, text}]}, each path
    from the folder's top (`files` a FileList or File objects, as a folder input gives them). */
export async function folderFiles(files) {
  const chosen = [...files];
  const top = chosen.length ? (chosen[0].webkitRelativePath || '').split('/')[0] : '';
  const inFolder = (f) => (f.webkitRelativePath || f.name).split('/').slice(1).join('/');
  return { top, files: await Promise.all(chosen.map(async (f) => ({ path: inFolder(f), text: await f.text() }))) };
}

/** The stack files a Portainer catalog names, from the files of a chosen folder (a checkout of
    the catalog's repository): each path the catalog names, from the folder's top. */
export function stackFiles(catalogText, chosen) {
  let catalog;
  try {
    catalog = JSON.parse(catalogText);
  } catch {
    return {};
  }
  const named = (catalog.templates || []).map((t) => t.repository && t.repository.stackfile).filter(Boolean);
  const found = {};
  for (const path of named) {
    const match = chosen.find((f) => f.path === path);
    if (match) found[path] = match.text;
  }
  return found;
}

/** A platform's catalog ({key: template}) from the files of a chosen folder (a checkout of the
    platform's repository, its templates' folder, or one Dokploy template's folder; `top` is the
    chosen folder's name), else the one template pasted or chosen as a file (`text`, named `name`).
    `layout` is how the service reads the platform's folder (`GET /formats`). */
export function platformCatalog(layout, chosen, top, text, name) {
  const below = `${layout.folder}/`;
  const inCatalog = chosen.some((f) => f.path.startsWith(below))
    ? chosen.filter((f) => f.path.startsWith(below))
    : chosen;
  const found = {};
  if (layout.marker) {
    // a folder per template, the marker its Compose file
    for (const file of inCatalog) {
      const parts = file.path.split('/');
      const base = parts.pop();
      if (!layout.files.includes(base)) continue;
      const key = parts.length ? parts[parts.length - 1] : top;
      (found[key] = found[key] || {})[base] = file.text;
    }
    return Object.fromEntries(Object.entries(found).filter(([, files]) => files[layout.marker] !== undefined));
  }
  for (const file of inCatalog.filter((f) => /\.ya?ml$/.test(f.path)))
    found[
      file.path
        .split('/')
        .pop()
        .replace(/\.ya?ml$/, '')
    ] = file.text;
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
