"""The filters of the profile and blueprint lists, and how a list request becomes the branches a
page is read from (`pagination.page`) and the predicate that applies the remaining filters.

Exact filters compare a field with the value given; `q` is a case-insensitive substring of the
name or the description, matched literally. A page with `q` reads at most 10,000 documents,
since no index serves a substring.
"""

import marshmallow as ma

from app.fields import Text
from app.pagination import PageArgs
from app.users.schemas import Username

MOST_EXAMINED_WITH_Q = 10_000


class ListArgs(PageArgs):
    """The filters both lists take; each resource adds its own."""

    name = Text(
        allow_none=False,
        load_default=ma.missing,
        validate=ma.validate.Length(1, 200),
        metadata={"description": "Exact name."},
    )
    q = Text(
        allow_none=False,
        load_default=ma.missing,
        validate=ma.validate.Length(1, 200),
        metadata={"description": "Case-insensitive substring of name or description, taken literally."},
    )
    owner = Username(metadata={"description": "Only resources of this owner."})


def matches(doc, equalities):
    """Whether `doc` has every value of `equalities`, as MongoDB compares them (an array field
    matches a value it contains)."""
    for name, value in equalities.items():
        held = doc.get(name)
        if held != value and not (isinstance(held, list) and value in held):
            return False
    return True


def plan(branches, args, exact_filters, indexed, also=None):
    """(branches, keep, most_examined) for a page of what `branches` (who may read what) allow,
    narrowed by the filters among `args` and the predicate `also`. A branch that a filter
    contradicts is dropped; one without equality (an admin's) takes an exact filter on an
    `indexed` field as its own."""
    filters = {name: args[name] for name in exact_filters if name in args}
    narrowed = []
    for branch in branches:
        if any(name in filters and filters[name] != value for name, value in branch.items()):
            continue
        if not branch:
            branch = next(({name: filters[name]} for name in indexed if name in filters), branch)
        narrowed.append(branch)
    needle = args["q"].casefold() if "q" in args else None

    def keep(doc):
        if not matches(doc, filters) or (also is not None and not also(doc)):
            return False
        return needle is None or any(needle in (doc.get(field) or "").casefold() for field in ("name", "description"))

    return narrowed, keep, MOST_EXAMINED_WITH_Q if needle is not None else None
