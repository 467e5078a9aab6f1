"""Kubernetes names made of Compose names: DNS-1123 labels (lowercase letters, digits and `-`,
starting and ending with one of the first two, at most 63; a Service's starting with a letter),
each owned by one Compose name per kind of object."""

import re

from app.definitions.schemas import listed
from app.errors import Invalid

MAX_LABEL = 63
_OTHER = re.compile(r"[^a-z0-9]+")


def label(name):
    """`My_App.web` is `my-app-web`; a name with no letter or digit is `x`."""
    text = _OTHER.sub("-", str(name).lower()).strip("-")[:MAX_LABEL].rstrip("-")
    return text or "x"


def service_label(name):
    """The name of a Compose service's Service and workload: its `label`, starting with a letter
    as a Service's name must (a DNS-1035 label): `2fa` is `x-2fa`."""
    given = label(name)
    return given if given[0].isalpha() else f"x-{given}"[:MAX_LABEL].rstrip("-")


class Names:
    """The names given to one kind of object; a second Compose name that would get one of them is a
    422 naming both."""

    def __init__(self, kind, naming=label):
        self.kind, self.naming, self.owners = kind, naming, {}

    def of(self, name, where):
        """The name `naming` gives `name` (at `where`, a path in the Compose file)."""
        given = self.naming(name)
        owner = self.owners.setdefault(given, (name, where))
        if owner[0] != name:
            raise Invalid(
                {
                    "target": [
                        f"{owner[1]} and {where} would both be the {self.kind} {given!r} on Kubernetes: rename one."
                    ]
                }
            )
        return given


def metadata(name, labels, namespace):
    """An object's metadata: its name, labels, and the namespace where one is given."""
    found = {"name": name, "labels": labels}
    if namespace:
        found["namespace"] = namespace
    return found


def hosts_renamed(spec, renamed, where, notes):
    """The service with each name in `renamed` ({Compose name: its Service's name}) that stands
    as a whole host in its environment values or its command (`wp_db`, `wp_db:5432`,
    `//wp_db/`) written as the Service's name, each rewrite a note; `spec` itself when none."""
    if not renamed:
        return spec
    names = "|".join(map(re.escape, sorted(renamed, key=len, reverse=True)))
    pattern = re.compile(rf"(?<![\w.-])({names})(?![\w.-])")  # a whole host: not inside a longer name

    def rewritten(value, path):
        if not isinstance(value, str) or not pattern.search(value):
            return value
        names = sorted({found[1] for found in pattern.finditer(value)})
        said = ", ".join(f"{name!r} is the Service {renamed[name]!r}" for name in names)
        notes.approximated(path, f"names a renamed service as a host: rewritten ({said})")
        return pattern.sub(lambda found: renamed[found[1]], value)

    changed = dict(spec)
    environment = spec.get("environment")
    if isinstance(environment, dict):
        changed["environment"] = {
            key: rewritten(value, [*where, "environment", key]) for key, value in environment.items()
        }
    elif isinstance(environment, list):
        changed["environment"] = [
            key + equals + rewritten(value, [*where, "environment", index]) if equals else entry
            for index, entry in enumerate(environment)
            for key, equals, value in [str(entry).partition("=")]
        ]
    for field in ("command", "entrypoint"):
        if isinstance(spec.get(field), str):
            changed[field] = rewritten(spec[field], [*where, field])
        elif isinstance(spec.get(field), list):
            changed[field] = [rewritten(word, [*where, field, index]) for index, word in enumerate(listed(spec[field]))]
    return changed
