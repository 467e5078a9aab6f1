"""Kubernetes names made of Compose names: DNS-1123 labels (lowercase letters, digits and `-`,
starting and ending with one of the first two, at most 63), each owned by one Compose name per
kind of object."""

import re

from app.errors import Invalid

MAX_LABEL = 63
_OTHER = re.compile(r"[^a-z0-9]+")


def label(name):
    """`My_App.web` is `my-app-web`; a name with no letter or digit is `x`."""
    text = _OTHER.sub("-", str(name).lower()).strip("-")[:MAX_LABEL].rstrip("-")
    return text or "x"


class Names:
    """The names given to one kind of object; a second Compose name that would get one of them is a
    422 naming both."""

    def __init__(self, kind):
        self.kind, self.owners = kind, {}

    def of(self, name, where):
        """The label of `name` (at `where`, a path in the Compose file)."""
        given = label(name)
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
