"""What a source's folder holds for each import format, as `bpctl import` reads a folder: the
import's `document` and `files` from a fetched `Tree`. A platform's folder may be its repository's
root, its templates' folder or one template; the other formats' is a file or the folder holding
it."""

from pathlib import PurePosixPath

from app.model import yamlguard
from app.model.yamlguard import YamlError

# where each platform's repository keeps its templates, and the file that makes a folder one
PLATFORMS = {"dokploy": ("blueprints", "docker-compose.yml"), "coolify": ("templates/compose", None)}
PLATFORMS["caprover"] = ("public/v4/apps", None)
DOKPLOY_FILES = ("docker-compose.yml", "template.toml", "meta.json")
COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
YAML_OR_JSON = (".yaml", ".yml", ".json")


def described(fmt):
    """How a folder of the format `fmt` is read, as clients read one too (`GET /formats`): where a
    platform's repository keeps its templates (`folder`), the file that makes a folder one template
    (`marker`), and the names of the files read (`files`; `*` stands for any name)."""
    if fmt in PLATFORMS:
        below, marker = PLATFORMS[fmt]
        return {"folder": below, "marker": marker, "files": list(DOKPLOY_FILES) if marker else ["*.yml", "*.yaml"]}
    files = {"compose": [*COMPOSE_FILES, ".env"], "portainer": ["templates.json", "*.json"]}
    return {"folder": None, "marker": None, "files": files.get(fmt, [f"*{end}" for end in YAML_OR_JSON])}


def document(fmt, tree, named):
    """(document, files, defaults) of the import that `tree` makes in the format `fmt`; `named`:
    the folder's own name (a Compose blueprint's name unless the source's defaults give one).
    ValueError when the folder holds nothing of the format."""
    if fmt in PLATFORMS:
        return _platform(fmt, tree, named), {}, {}
    top = [name for name in tree.names if "/" not in name]
    if fmt == "compose":
        alone = top[0] if len(top) == 1 and top[0].endswith((".yml", ".yaml")) else None  # `path` named the file
        found = next((name for name in COMPOSE_FILES if name in top), alone)
        if found is None:
            raise ValueError(f"No Compose file here ({', '.join(COMPOSE_FILES)}).")
        texts = tree.read([found, ".env"])
        return texts[found], {".env": texts[".env"]} if ".env" in texts else {}, {"name": named}
    if fmt == "portainer":
        return _portainer(tree, top)
    if fmt == "openshift":
        return _objects(tree.read([name for name in top if name.endswith(YAML_OR_JSON)]), ("Template", "List")), {}, {}
    texts = tree.read([name for name in top if name.endswith(YAML_OR_JSON)])  # native, kubernetes-quota
    if not texts:
        raise ValueError("No YAML or JSON file here.")
    return "\n---\n".join(texts[name] for name in sorted(texts)), {}, {}


def _platform(fmt, tree, named):
    """{key: template} of a platform's catalog: each Dokploy folder's files, each Coolify or
    CapRover file's text, keyed by the folder's or file's name."""
    below, marker = PLATFORMS[fmt]
    prefix = below + "/" if any(name.startswith(below + "/") for name in tree.names) else ""
    names = {name[len(prefix) :] for name in tree.names if name.startswith(prefix)}
    if marker is None:
        files = sorted(name for name in names if "/" not in name and name.endswith((".yml", ".yaml")))
        texts = tree.read([prefix + name for name in files])
        return {PurePosixPath(name).stem: texts[prefix + name] for name in files if prefix + name in texts}
    if marker in names:  # one template's folder
        return {named: tree.read([file for file in DOKPLOY_FILES if file in names])}
    folders = sorted(name.split("/")[0] for name in names if name.count("/") == 1 and name.endswith("/" + marker))
    texts = tree.read([f"{prefix}{folder}/{file}" for folder in folders for file in DOKPLOY_FILES])
    return {
        folder: {file: texts[key] for file in DOKPLOY_FILES if (key := f"{prefix}{folder}/{file}") in texts}
        for folder in folders
    }


def _portainer(tree, top):
    """A Portainer catalog's file (`templates.json`, else the one JSON file holding `templates`)
    and the stack files it names that the folder holds."""
    candidates = ["templates.json"] if "templates.json" in top else [name for name in top if name.endswith(".json")]
    for text in tree.read(candidates).values():
        try:
            loaded = [one for one in yamlguard.load(text) if one is not None]
        except YamlError:
            continue
        if len(loaded) == 1 and isinstance(loaded[0], dict) and isinstance(loaded[0].get("templates"), list):
            stacks = {
                template["repository"]["stackfile"]
                for template in loaded[0]["templates"]
                if isinstance(template, dict)
                and isinstance(template.get("repository"), dict)
                and isinstance(template["repository"].get("stackfile"), str)
            }
            return text, tree.read(sorted(stacks)), {}
    raise ValueError("No Portainer app templates file here (templates.json).")


def _objects(texts, kinds):
    """The objects of `kinds` (and arrays of them) in the YAML or JSON `texts`, in order; files
    that hold others (a README, a CI's settings) are passed over."""
    found = []
    for name in sorted(texts):
        try:
            loaded = yamlguard.load(texts[name])
        except YamlError:
            continue
        for one in loaded:
            items = one if isinstance(one, list) else [one]
            found += [item for item in items if isinstance(item, dict) and item.get("kind") in kinds]
    if not found:
        raise ValueError(f"No {' or '.join(kinds)} here.")
    return found
