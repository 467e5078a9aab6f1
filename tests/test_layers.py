"""The layers of app/ (its packages' docstrings say the same): a module imports only from its own
layer and the ones below it, so the tree reads from the bottom up."""

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"
LAYERS = [  # bottom first
    ("app.config", "app.errors"),
    ("app.model",),
    ("app.definitions",),
    ("app.storage",),
    ("app.access",),
    ("app.ops",),
    ("app.http",),
    ("app.profiles", "app.blueprints", "app.instances", "app.users", "app.imports"),
    ("app.web", "app.cli", "app.gunicorn_worker", "app"),
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


def test_every_import_goes_down_or_stays_in_its_layer():
    upward = []
    for path in sorted(path for path in APP.rglob("*.py") if "node_modules" not in path.parts):  # not the linter's
        parts = path.relative_to(APP.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        upward += [f"{module} -> {name}" for name in imports(path) if layer(name) > layer(module)]
    assert upward == []


def test_the_command_line_client_imports_nothing_of_the_service():
    """bpctl is a client like any script: it speaks HTTP, so it runs where the service is not
    installed in full and cannot reach around the API."""
    client = APP.parent / "bpctl"
    assert sorted(client.glob("*.py")) and [str(p) for p in client.glob("*.py") if list(imports(p))] == []
