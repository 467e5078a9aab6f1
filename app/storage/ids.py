"""Resource ids that order by creation time to the millisecond, across workers and hosts: still
ObjectIds (the same creation second), laid out as second, millisecond, per-process random bytes
and a counter, so an id range is a time range (`pages`). Why not a standard ObjectId:
docs/storage.md, "Ids"."""

import itertools
import os
import struct

from bson import ObjectId

_state = {}


def _reseed():
    """New random bytes and counter in each process, forked workers included."""
    _state["process"] = os.urandom(3)
    _state["counter"] = itertools.count(int.from_bytes(os.urandom(3), "big"))


_reseed()
os.register_at_fork(after_in_child=_reseed)


def ms_of(moment):
    """Milliseconds since the epoch of an aware datetime."""
    return int(moment.timestamp() * 1000)


def new_id(moment):
    """The id of a document created at `moment` (an aware datetime, as `database.now` gives)."""
    seconds, millis = divmod(ms_of(moment), 1000)
    count = next(_state["counter"]) & 0xFFFFFF
    return ObjectId(struct.pack(">IH", seconds, millis) + _state["process"] + count.to_bytes(3, "big"))


def boundary(ms):
    """The lowest id of millisecond `ms`: every id made at `ms` or later is >= it, every earlier
    one is below it (an id made by another ObjectId generator sorts within its second)."""
    seconds, millis = divmod(max(ms, 0), 1000)
    return ObjectId(struct.pack(">IH", seconds, millis) + bytes(6))


def ms_of_id(oid):
    """The millisecond an id was made at (for a standard ObjectId, within its second)."""
    seconds, millis = struct.unpack(">IH", oid.binary[:6])
    return seconds * 1000 + min(millis, 999)
