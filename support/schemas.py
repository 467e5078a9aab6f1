"""Loading a body schema in tests."""

import marshmallow as ma
import pytest


def errors_of(schema, data, **kw):
    """The messages of the ValidationError that `schema(**kw)` raises loading `data`."""
    with pytest.raises(ma.ValidationError) as info:
        schema(**kw).load(data)
    return info.value.messages
