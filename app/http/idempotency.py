"""Idempotency-Key on POST: a retry gets the first response and creates nothing new.

A key is claimed by inserting a record whose id is a digest of (user, collection, key); the unique
_id makes the claim atomic across workers and hosts. The record holds a fingerprint of the body
and, once done, the resource as created, which a retry gets again; a TTL index forgets it after
24 hours. The resource's id is the claim's own ObjectId, which a takeover keeps, so a retry that
takes over a claim abandoned by a crashed request finds the resource that request may have made
instead of making a second one (and requests without a key pay nothing for this).
"""

import hashlib
import re
from datetime import timedelta

import orjson
from flask import current_app, request
from pymongo.errors import ConnectionFailure, DuplicateKeyError

from app.config import request_lease
from app.errors import Conflict, Invalid, Undecided
from app.storage import ids
from app.storage.database import afterwards, get_db, now
from app.storage.list_keys import without_keys
from app.storage.resource_store import MAX_ATTEMPTS

KEY = re.compile(r"[\x20-\x7e]{1,255}")  # whole value; the document publishes it as ^...$
TTL = timedelta(hours=24)
RETRY_AFTER = "1"
HEADER = {
    "name": "Idempotency-Key",
    "in": "header",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": f"^{KEY.pattern}$"},
    "description": "A retry with the same key and body within 24 h returns the first response "
    "and creates nothing; the same key with another body is a 422.",
}


def create_indexes(db):
    db.idempotency.create_index("createdAt", name="forget_after_24h", expireAfterSeconds=int(TTL.total_seconds()))


def _digest(*parts):
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _key():
    key = request.headers.get("Idempotency-Key")
    if key is not None and not KEY.fullmatch(key):
        raise Invalid({"Idempotency-Key": ["1-255 printable ASCII characters."]})
    return key


def dry_run(make, fields, user):
    """What `make` (a create: `store.create`, or `admission.admit`) would store; the key is
    checked, never claimed."""
    _key()
    return make(fields, user, dry_run=True)


def create(make, kind, fields, user):
    """`make(fields, user)` once per Idempotency-Key and `kind` of resource: the resource, and the
    headers that say whether it is a replay. A failure releases the claim, so the request can be
    sent again."""
    key = _key()
    if key is None:
        return make(fields, user), {}
    records = get_db().idempotency
    record_id = _digest(user["username"], kind, key)
    body = orjson.dumps(request.get_json(force=True), option=orjson.OPT_SORT_KEYS).decode()
    claim = _claim(records, record_id, _digest(body))
    if claim.get("state") == "done":
        return claim["resource"], {"Idempotent-Replayed": "true"}
    try:
        doc = make(fields, user, claim["claimId"])
    except BaseException as exc:
        if not isinstance(exc, (ConnectionFailure, Undecided)):  # else it may have made it: a retry finds it
            records.delete_one({"_id": record_id, "state": "pending"})
        raise
    afterwards(_finish, records, record_id, doc)
    return doc, {}


def _finish(records, record_id, doc):
    """The response's resource is kept, not what it is found by (`keys`, derived and large). Where
    this is lost, the claim's lease runs out and a retry takes it over with its id, which finds the
    resource made."""
    records.update_one({"_id": record_id}, {"$set": {"state": "done", "resource": without_keys(doc)}})


def _claim(records, record_id, fingerprint):
    """This request's claim on the key, or the finished record of an earlier one."""
    lease = request_lease(current_app.config)
    for _ in range(MAX_ATTEMPTS):
        moment = now()
        record = {
            "_id": record_id,
            "fingerprint": fingerprint,
            "state": "pending",
            "claimId": ids.new_id(moment),
            "leaseUntil": moment + lease,
            "createdAt": moment,
        }
        try:
            records.insert_one(record)
            return record
        except DuplicateKeyError:
            pass
        earlier = records.find_one({"_id": record_id})
        if earlier is None:  # expired or released since
            continue
        if earlier["fingerprint"] != fingerprint:
            raise Invalid({"Idempotency-Key": ["Already used with another body."]})
        if earlier["state"] == "done":
            return earlier
        if earlier["leaseUntil"] > moment:
            raise Conflict("A request with this Idempotency-Key is in progress.", {"Retry-After": RETRY_AFTER})
        taken = records.update_one(  # the first request died: take its claim over
            {"_id": record_id, "state": "pending", "leaseUntil": earlier["leaseUntil"]},
            {"$set": {"leaseUntil": moment + lease}},
        )
        if taken.matched_count:
            return {**earlier, "leaseUntil": moment + lease}
    raise RuntimeError("could not claim an idempotency key")
