"""How the tests read the YAML the service writes: PyYAML's safe loader on libyaml, its C parser
(a catalog's whole-render tests read each stream three times; PyYAML's Python parser took more
than half of their time). Where the service's reading itself is what a test checks, it reads with
the service's own loader instead."""

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # PyPI's wheels are built with libyaml


def document(text):
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 (a safe loader)


def documents(text):
    """The documents of a stream, the empty ones left out."""
    return [one for one in yaml.load_all(text, Loader=_LOADER) if one]  # noqa: S506 (a safe loader)
