"""The filters of the profile and blueprint lists, and the MongoDB query they make.

Exact filters compare a field with the value given; `q` is a case-insensitive substring of the
name or the description, escaped so that it is matched literally. Every query is narrowed to
what the caller may read first.
"""

import re

import marshmallow as ma

from app.fields import Text
from app.pagination import PageArgs
from app.users.schemas import Username


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


def query(readable, args, exact_filters):
    """`readable` (who may read what) narrowed by the filters among `args`."""
    conditions = [readable]
    conditions += [{name: args[name]} for name in exact_filters if name in args]
    if "q" in args:
        pattern = {"$regex": re.escape(args["q"]), "$options": "i"}
        conditions.append({"$or": [{"name": pattern}, {"description": pattern}]})
    return {"$and": conditions}
