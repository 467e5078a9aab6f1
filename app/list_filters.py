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


def _holds(doc, name, value):
    """Whether `doc` has `value` in `name`, as MongoDB compares them (an array field matches a
    value it contains)."""
    held = doc.get(name)
    return held == value or (isinstance(held, list) and value in held)


def matches(doc, equalities):
    return all(_holds(doc, name, value) for name, value in equalities.items())


def plan(branches, args, exact_filters, indexed, also=None):
    """(branches, keep, most_examined) for a page of what `branches` (who may read what) allow,
    narrowed by the filters among `args` (`tag` repeated: every one must match) and the predicate
    `also`. A branch that a filter contradicts is dropped; one without equality (an admin's)
    takes a filter on an `indexed` field as its own."""
    conditions = [(name, args[name]) for name in exact_filters if name in args]
    conditions += [("tags", tag) for tag in args.get("tag", ())]
    narrowed = []
    for branch in branches:
        if any(name == field and value != wanted for name, value in branch.items() for field, wanted in conditions):
            continue
        if not branch:
            branch = next(({field: value} for field, value in conditions if field in indexed), branch)
        narrowed.append(branch)
    needle = args["q"].casefold() if "q" in args else None

    def keep(doc):
        if not all(_holds(doc, field, value) for field, value in conditions) or (also is not None and not also(doc)):
            return False
        return needle is None or any(needle in (doc.get(field) or "").casefold() for field in ("name", "description"))

    return narrowed, keep, MOST_EXAMINED_WITH_Q if needle is not None else None
