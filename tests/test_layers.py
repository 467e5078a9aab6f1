"""The layers of app/ (its packages' docstrings say the same): a module imports only from its own
layer and the ones below it, so the tree reads from the bottom up."""

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"
LAYERS = [  # bottom first: a folder each (app/'s own modules stand at both ends)
    ("app.config", "app.errors", "app.state"),
    ("app.model",),
    ("app.definitions",),
    ("app.storage",),
    ("app.teams",),  # a team's roles are read by access/, which stands above it
    ("app.access",),
    ("app.ops",),
    ("app.http",),
    ("app.jobs",),  # long work, run beside the request that starts it
    (
        "app.instances",
        "app.blueprints",
        "app.profiles",
        "app.environments",
    ),  # resources, each its schemas and store: peers
    ("app.imports",),
    ("app.sources",),  # catalogs followed from git, imported as imports are
    ("app.joins",),  # what joins resources: a fit, an admission, every reading across them
    ("app.api",),
    ("app.web",),
    ("app.cli", "app.gunicorn_worker", "app.migrations", "app"),
]


def layer(module):
    """The index in LAYERS of the longest prefix that names `module` or a package holding it."""
    found = [
        (len(prefix), i)
        for i, prefixes in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or module.startswith(prefix + ".")
    ]
    return max(found)[1]


def test_a_layer_is_a_folder():
    """Beyond app/'s own modules, each entry names packages (peers, where several), and each package
    of app/ has one."""
    folders = {package for entry in LAYERS[1:-2] for package in entry}
    packages = {
        ".".join(path.relative_to(APP.parent).parts) for path in APP.iterdir() if (path / "__init__.py").exists()
    }
    assert folders | {"app.web"} == packages


def imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "app":
            for alias in node.names:  # `from app import x` imports the module app.x when there is one
                name = f"{node.module}.{alias.name}"
                yield (
                    name
                    if (APP.parent / name.replace(".", "/")).with_suffix(".py").exists()
                    or (APP.parent / name.replace(".", "/")).is_dir()
                    else node.module
                )
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.split(".")[0] == "app")


def modules():
    """(module name, path) of each of app/'s modules."""
    for path in sorted(path for path in APP.rglob("*.py") if "node_modules" not in path.parts):  # not the linter's
        parts = path.relative_to(APP.parent).with_suffix("").parts
        yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


def test_every_import_goes_down_or_stays_in_its_layer():
    upward = []
    for module, path in modules():
        upward += [f"{module} -> {name}" for name in imports(path) if layer(name) > layer(module)]
    assert upward == []


RESOURCES = ("app.teams", "app.instances", "app.blueprints", "app.profiles", "app.environments")


def resource(module):
    return next((one for one in RESOURCES if module == one or module.startswith(one + ".")), None)


def test_no_resource_imports_another():
    """Every reading across resources is app/joins/across.py's: a store is given what it reads of
    another, so each resource reads alone."""
    across = []
    for module, path in modules():
        if resource(module) is not None:
            across += [
                f"{module} -> {name}" for name in imports(path) if resource(name) not in (None, resource(module))
            ]
    assert across == []


def test_the_command_line_client_imports_nothing_of_the_service():
    """bpctl is a client like any script: it speaks HTTP, so it runs where the service is not
    installed in full and cannot reach around the API."""
    client = APP.parent / "bpctl"
    assert sorted(client.glob("*.py")) and [str(p) for p in client.glob("*.py") if list(imports(p))] == []


# Each collection and the one module that reads and writes it; the resources' own (profiles,
# blueprints, instances) are reached only through their store's `self.coll()`.
OWNERS = {
    "revisions": "app.blueprints.history.storage",
    "ledgers": "app.profiles.ledgers",
    "users": "app.access.users",
    "tokens": "app.access.tokens",
    "teams": "app.teams.storage",
    "idempotency": "app.http.idempotency",
    "rate_limits": "app.access.request_quota",
    "auth_failures": "app.access.login_throttle",
    "settings": "app.storage.database",
    "namespaces": "app.instances.namespaces",
    "hosts": "app.instances.hosts",
    "removals": "app.instances.removals",
    "jobs": "app.jobs.storage",
    "environments": "app.environments.storage",
}
INSTANCE_WRITES = {"insert", "replace_version", "delete_version"}
DATABASE_METHODS = {"command", "client", "name", "list_collection_names", "drop_collection"}


def touched(path):
    """What a module reaches: (collection or "coll() of another", line) for each reach."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr not in DATABASE_METHODS:
            database = node.value
            if (isinstance(database, ast.Name) and database.id == "db") or (
                isinstance(database, ast.Call) and getattr(database.func, "id", None) == "get_db"
            ):
                yield node.attr, node.lineno
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "collection":
            yield next((arg.value for arg in node.args if isinstance(arg, ast.Constant)), "collection()"), node.lineno
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "coll":
            receiver = node.func.value
            if not (isinstance(receiver, ast.Name) and receiver.id == "self"):
                yield "coll() of another", node.lineno


def test_only_a_collections_owner_touches_it():
    strays = []
    for path in sorted(path for path in APP.rglob("*.py") if "node_modules" not in path.parts):
        module = ".".join(path.relative_to(APP.parent).with_suffix("").parts).removesuffix(".__init__")
        strays += [
            f"{module}:{line} {name}"
            for name, line in touched(path)
            if OWNERS.get(name) != module and not (name == "collection()" and module == "app.storage.resource_store")
        ]
    assert strays == []


def callers(attributes):
    """Where app/ reaches any of `attributes` on something other than `self`: module:line."""
    found = []
    for path in sorted(path for path in APP.rglob("*.py") if "node_modules" not in path.parts):
        module = ".".join(path.relative_to(APP.parent).with_suffix("").parts).removesuffix(".__init__")
        found += [
            f"{module}:{node.lineno}"
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Attribute)
            and node.attr in attributes
            and not (isinstance(node.value, ast.Name) and node.value.id == "self")
        ]
    return found


def test_only_an_admission_writes_an_instance():
    """The instance store has no create, change or delete of its own, and only admission calls the
    writes it has (whatever a caller names the store): nothing writes an instance around what its
    profile is charged."""
    from app.instances.storage import store

    assert not any(hasattr(store, name) for name in ("create", "update", "delete"))
    found = callers(INSTANCE_WRITES)
    assert found and {caller.split(":")[0] for caller in found} == {"app.joins.admission"}


def test_only_an_admission_puts_an_instance_in_a_namespace():
    """A render writes for a cluster; the Namespace, quota and LimitRange that hold an instance
    there are what admission adds, from what it admitted."""
    found = callers({"in_namespace"})
    assert found and {caller.split(":")[0] for caller in found} == {"app.joins.admission"}
