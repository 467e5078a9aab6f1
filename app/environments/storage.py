"""Environments in MongoDB: registered, changed and deleted by admins alone (a Docker endpoint is
root on its host), each name once.

Where an environment is reached is checked on every write, before any connection
(access/addresses.py: the hosts `ENVIRONMENT_HOSTS` names, at public addresses unless
`ENVIRONMENT_PRIVATE`; a unix socket only at a path `ENVIRONMENT_SOCKETS` names), and its
credentials are sealed (access/sealing.py). Plain tcp is refused: an engine's API over it is root
on its host to anyone on the path, so tcp needs `tls`."""

import re
from datetime import timedelta
from urllib.parse import urlsplit

from flask import current_app
from pymongo import ASCENDING, DESCENDING

from app.access import addresses, sealing
from app.errors import Conflict, Forbidden, Invalid
from app.model.accounts import is_admin
from app.storage import list_keys
from app.storage.database import now
from app.storage.resource_store import ResourceStore

DOCKER_PORTS = {"tcp": 2376, "ssh": 22}  # Docker's TLS port; ssh's own
REMOTE_SOCKET = re.compile(r"(/(?!\.\.?/|\.\.?$)[A-Za-z0-9._-]+)+")  # no `.` or `..` step
FIELDS_OF = {
    "docker": {"endpoint", "tls", "deployKey", "knownHosts", "proxy"},
    "git": {"url", "ref", "path", "token", "deployKey", "knownHosts"},
}
WHERE = {"docker": "endpoint", "git": "url"}
SHOWN = ("_id", "name", "kind", "interval", "heal", "state", "can", "createdAt", "updatedAt", "rev")


class Environments(ResourceStore):
    collection = "environments"
    noun = "environment"
    filters = {"name": "name"}
    # Readings of other resources, given by app/joins/across.py `connect` (no resource imports another)
    named_by = None  # (environment name) -> what names it ("profile 'small'", "instance 'shop'"), or None
    named_for = None  # (user) -> the names of the environments the profiles `user` reads name

    def create_indexes(self):
        """Each name once."""
        self.coll().create_index([("name", ASCENDING)], unique=True, name="name_unique")
        self.coll().create_index([("observeAt", ASCENDING)], name="observe_at")
        super().create_indexes()

    def scopes(self, doc):
        """Admins alone: a profile's readers learn its environments' names from the profile."""
        return [list_keys.ADMINS], []

    def can(self, doc, user):
        admin = is_admin(user)
        return {"change": admin, "delete": admin}

    def can_read(self, doc, user):
        """Admins; and whoever reads a profile naming it, who reads its name, kind and state."""
        return is_admin(user) or doc["name"] in self.named_for(user)

    def seen_by(self, doc, user):
        """As admins see it; others see its name, kind, interval and state alone (where and how it
        is reached stay the admins')."""
        seen = super().seen_by(doc, user)
        return seen if is_admin(user) else {key: seen[key] for key in SHOWN if key in seen}

    def list(self, user, args, also=None):
        """Admins' a keyset page; others' the environments their profiles name, few, in one page
        (newest first, the list's filter `name` applied)."""
        if is_admin(user):
            return super().list(user, args, also)
        names = [name for name in self.named_for(user) if args.get("name") in (None, name)]
        found = self.coll().find({"name": {"$in": names}}).sort("_id", DESCENDING).limit(args["limit"])
        return self.answers(list(found), user), None

    def apply_rules(self, changes, stored, user):
        """Admins alone; the name and kind as first given; the fields of the kind, where it is
        reached checked (a 422 before any connection); the credentials sealed."""
        if not is_admin(user):
            raise Forbidden("Only admins register and change environments: a Docker endpoint is root on its host.")
        changes = dict(changes)
        for field in ("name", "kind"):
            if stored is not None and changes.get(field, stored[field]) != stored[field]:
                raise Invalid({field: [f"An environment's {field} never changes."]})
        merged = {**(stored or {}), **changes}
        kind = merged["kind"]
        wrong = sorted(field for field in set(changes) & _ALL - FIELDS_OF[kind] if changes[field] not in (None, "", {}))
        if wrong:
            raise Invalid({field: [f"Not a field of a {kind} environment."] for field in wrong})
        where = WHERE[kind]
        if not merged.get(where):
            raise Invalid({where: [f"A {kind} environment needs one."]})
        folder = changes.get("path") or ""
        if folder.startswith("/") or any(part in ("..", ".") for part in folder.split("/")):
            raise Invalid({"path": ["A folder inside the repository: no leading '/', no '.' or '..'."]})
        if changes.keys() & {where, "knownHosts", "tls", "deployKey"}:
            _check(kind, merged, changes, stored)
        if stored is None or changes.keys() & {where, "interval"}:
            changes["observeAt"] = now()  # observed at the schedule's next round
        return sealing.sealed(changes, self.collection)

    def named(self, name):
        """The environment named `name`, or None, whoever asks (an admission's, a delivery's)."""
        return self.coll().find_one({"name": name})

    def check_named(self, names):
        """A 422 naming `environments` where an environment of `names` does not exist."""
        found = {doc["name"] for doc in self.coll().find({"name": {"$in": list(names)}}, {"name": 1})}
        if missing := [name for name in names if name not in found]:
            raise Invalid({"environments": [f"No environment is named {name!r}." for name in missing]})

    def due(self, moment, most):
        """Up to `most` environments whose observation is due at `moment`."""
        return list(self.coll().find({"observeAt": {"$lte": moment}}).sort("observeAt", ASCENDING).limit(most))

    def scheduled(self, doc, moment):
        """Move the due environment's next observation on by its interval; whether this caller did
        (and so observes it), not another worker."""
        after = moment + timedelta(seconds=doc["interval"])
        moved = self.coll().update_one(
            {"_id": doc["_id"], "observeAt": doc["observeAt"]}, {"$set": {"observeAt": after}}
        )
        return moved.matched_count == 1

    def observed(self, _id, state):
        """Write what an observation found (`state`); not a new version."""
        self.coll().update_one({"_id": _id}, {"$set": {"state": state}})

    def before_write(self, stored, changes):
        """A name another environment has is a 409."""
        name = changes.get("name")
        if stored is None and self.coll().find_one({"name": name}, {"_id": 1}) is not None:
            raise Conflict(f"There is an environment named {name!r} already.")

    def delete(self, id_text, user, if_match=None):
        """Not while a profile or an instance names it (a 409 saying which)."""
        doc = self.checked(id_text, user, if_match)
        if (naming := self.named_by(doc["name"])) is not None:
            raise Conflict(f"The {naming} names this environment: change or delete it first.")
        super().delete(id_text, user, if_match)


_ALL = set().union(*FIELDS_OF.values())


def _check(kind, merged, changes, stored):
    """Where the environment is reached, under the operator's settings; a 422 naming the field."""
    config, where = current_app.config, WHERE[kind]
    known_hosts = merged.get("knownHosts")
    try:
        if kind == "git":
            addresses.checked(merged["url"], config, "ENVIRONMENT", known_hosts)
        else:
            engine_checked(merged["endpoint"], config, known_hosts)
    except ValueError as exc:
        raise Invalid({where: [str(exc)]}) from None

    def held(name):  # a credential given now, or kept from before (a null given takes it away)
        return changes[name] if name in changes else (stored or {}).get(sealing.SEALED[name])

    if kind == "docker" and merged["endpoint"].startswith("tcp://") and not held("tls"):
        raise Invalid({"tls": ["An engine over tcp is reached with TLS only: give its CA and a client key pair."]})
    if kind == "docker" and merged["endpoint"].startswith("ssh://") and not held("deployKey"):
        raise Invalid({"deployKey": ["An engine over ssh needs the key the service signs in with."]})


def engine_checked(endpoint, config, known_hosts):
    """A Docker endpoint as the operator allows it: a unix socket at a path ENVIRONMENT_SOCKETS
    names (None), or tcp or ssh to a host ENVIRONMENT_HOSTS names (its `addresses.Remote`, the
    address checked); ValueError saying why not. An ssh endpoint may name the engine's socket on
    its host (`ssh://USER@HOST/run/docker.sock`; default /var/run/docker.sock)."""
    if not endpoint.isascii() or any(char.isspace() or ord(char) < 32 for char in endpoint):
        raise ValueError("An endpoint of printable ASCII characters, without spaces.")
    parts = urlsplit(endpoint)
    if parts.scheme == "unix":
        allowed = config["ENVIRONMENT_SOCKETS"]
        if parts.netloc or parts.path not in allowed:
            listed = ", ".join(allowed) or "none"
            raise ValueError(
                f"unix://{parts.path} is not a socket environments may name (ENVIRONMENT_SOCKETS: {listed})."
            )
        return None
    if parts.scheme not in DOCKER_PORTS:
        raise ValueError("unix:///path, tcp://HOST:PORT or ssh://USER@HOST[:PORT].")
    host, port = addresses.host_and_port(parts, DOCKER_PORTS)
    path = parts.path if parts.scheme == "ssh" and parts.path not in ("", "/") else ""
    if path and not REMOTE_SOCKET.fullmatch(path):
        raise ValueError("The engine's socket on the host: an absolute path of letters, digits, `.`, `_`, `-`.")
    if not host or parts.password is not None or parts.query or parts.fragment or parts.path.strip("/") and not path:
        raise ValueError("A host and a port, nothing else (credentials go in `tls` or `deployKey`).")
    if parts.scheme == "ssh" and not (parts.username and (known_hosts or config["SOURCE_KNOWN_HOSTS"])):
        raise ValueError("ssh://USER@HOST, with the host's keys trusted (`knownHosts` or SOURCE_KNOWN_HOSTS).")
    return addresses.reached(
        endpoint, (parts.scheme, host.lower(), port), DOCKER_PORTS[parts.scheme], config, "ENVIRONMENT"
    )


store = Environments()
