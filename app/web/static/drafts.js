/* What the editor reads off what is typed, without the DOM (tested with Node's own runner): the
   line a problem names, a comma-separated list, and the parameters a Compose file's variables add
   to those declared. */

/** The line of the definition that a problem's place (`services.web.image`) or text (`line 4`) names. */
export function lineOf(text, place, message) {
  const stated = /line (\d+)/.exec(message);
  if (stated) return Number(stated[1]);
  if (!place) return null;
  const path = place.split('.').filter((part) => !/^\d+$/.test(part));
  const lines = text.split('\n');
  let found = null;
  let depth = 0;
  let indent = -1;
  for (let i = 0; i < lines.length && depth < path.length; i += 1) {
    const match = /^(\s*)(?:- )?("?)([^:#"]+)\2\s*:(\s|$)/.exec(lines[i]);
    if (match && match[3].trim() === path[depth] && match[1].length > indent) {
      found = i + 1;
      depth += 1;
      indent = match[1].length;
    }
  }
  return found;
}

/** The names of a comma-separated field, trimmed, empty ones left out. */
export function list(text) {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/** The parameters `current` (null: none) with those `proposed` (a Compose import's, inferred
    from the definition's variables) that it does not declare yet: `{merged, added}`. What is
    declared stays as it is; a proposed one is required where the proposal requires it. */
export function declared(current, proposed) {
  const mine = current || { type: 'object', properties: {} };
  const theirs = proposed || { type: 'object', properties: {} };
  const added = Object.keys(theirs.properties).filter((n) => !(n in (mine.properties || {})));
  const merged = { ...mine, properties: { ...theirs.properties, ...mine.properties } };
  const required = [
    ...new Set([...(mine.required || []), ...(theirs.required || []).filter((n) => added.includes(n))]),
  ];
  if (required.length) merged.required = required;
  return { merged, added };
}
