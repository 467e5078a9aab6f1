"""How a command names what it acts on: a name, looked up among everything the caller may read
(an imported template also as SOURCE:KEY), or its id (`--id ID`, or a name that is one). A name
that several share is a usage error (exit 2) listing each with its id, owner and source, unless
exactly one of them is the caller's to change (its own, or its team's): `can`, as the service
answers it, tells which."""

import functools
import re

import click

from bpctl import show
from bpctl.errors import Misused, Refused

ID = re.compile(r"[0-9a-f]{24}")


def source_of(item):
    """How an imported blueprint is also named, SOURCE:KEY (an imported profile's too); None for
    what no import made."""
    source = item.get("source")
    return f"{source['name']}:{source['key']}" if source else None


CANDIDATES = {"ID": "id", "NAME": "name", "OWNER": "owner", "SOURCE": source_of}  # the table of a name several share


class ById(str):
    """A reference given with --id: an id, never looked up as a name."""


def named(param, noun, then=None, then_required=True, optional=False):
    """The command's positional `param` names a `noun` (a name, SOURCE:KEY or an id), or `--id ID`
    does instead (`optional`: or neither); `then`, the positional argument after it, if any, is
    then the first one given (declared not required: `then_required` says whether it is)."""

    def decorate(command):
        @functools.wraps(command)
        def run(*args, **kwargs):
            name, by_id = kwargs.pop(param), kwargs.pop("by_id")
            if by_id is not None and then is not None and kwargs[then] is None:
                kwargs[then], name = name, None
            if (name is not None and by_id is not None) or (name is None and by_id is None and not optional):
                raise click.UsageError(f"name the {noun}: {param.upper()}, or --id ID; one of them.")
            if then is not None and then_required and kwargs[then] is None:
                raise click.MissingParameter(param_hint=then.upper(), param_type="argument")
            kwargs[param] = ById(by_id) if by_id is not None else name
            return command(*args, **kwargs)

        run = click.option("--id", "by_id", metavar="ID", help=f"The {noun}'s id, instead of its name.")(run)
        return click.argument(param, required=False)(run)

    return decorate


def resolved(session, collection, noun, ref, owner=None):
    """The `noun` of `collection` that `ref` names, as the caller reads it (`owner`: only theirs)."""
    if isinstance(ref, ById):
        return session.get(f"/{collection}/{ref}")
    if ID.fullmatch(ref):  # an id, unless nothing has it: then a name
        try:
            return session.get(f"/{collection}/{ref}")
        except Refused as exc:
            if exc.status != 404:
                raise
    found = _found(session, collection, {"name": ref, "owner": owner})
    source, _, key = ref.rpartition(":")
    if not found and collection == "blueprints" and source and key:
        found = _found(session, collection, {"source": source, "sourceKey": key, "owner": owner})
    if len(found) > 1:
        theirs = [item for item in found if item["can"]["change"]]
        found = theirs if len(theirs) == 1 else found
    if len(found) == 1:
        return found[0]
    if not found:
        whose = f" of {owner}" if owner else ""
        raise Refused(f"no {noun}{whose} named {ref!r} that you may read.", _alike(session, collection, ref))
    raise Misused(
        f"{len(found)} {noun}s are named {ref!r}: name one by its id (--id ID){_or_source(found)}.",
        show.lines(found, CANDIDATES),
    )


def _found(session, collection, params):
    if collection == "sources":  # named by their URL, which no list filters by: the caller's few, read whole
        return [item for item in session.items("/sources", {"owner": params["owner"]}) if item["url"] == params["name"]]
    return list(session.items(f"/{collection}", {key: value for key, value in params.items() if value}))


def _or_source(found):
    return " or SOURCE:KEY" if all(item.get("source") for item in found) else ""


def _alike(session, collection, ref):
    """What the caller may have meant: blueprints an import made from a template keyed `ref`
    (`bookstack` for BookStack), as they are named."""
    if collection != "blueprints":
        return []
    alike = session.items("/blueprints", {"sourceKey": ref}, limit=5)
    return [f"did you mean {item['name']!r} ({source_of(item)})?" for item in alike]
