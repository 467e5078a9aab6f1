"""What a stored document is found by in lists (its `keys`), and which keys a list reads.

A key is a scope, who may read the document (a username; EVERYONE on PUBLIC blueprints; ADMINS
on the rest), alone or with one term, a value a list can ask for (`n:` name, `g:` tag, `w:` the
first 3 and 5 characters of a word...). One index, `(keys, _id)`, then serves every list: a page
reads one equality per scope of the caller. Why one multikey field and where its bounds come
from: docs/storage.md, "Lists".
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

FIELD = "keys"
INDEX = {"keys": [(FIELD, 1), ("_id", -1)], "name": "keys_newest"}
SEP = "\x1f"  # between scope and term: a character no username or value here contains
EVERYONE, ADMINS, INCOMPLETE = "*", "!", "~"
STARS = "+"  # `+<SEP>alice`: a blueprint alice starred
CODES = {
    "name": "n",
    "owner": "o",
    "blueprintType": "t",
    "entitlementType": "e",
    "inactive": "i",
    "defaultProfile": "d",
    "tags": "g",
    "blueprint": "b",
    "profile": "p",
    "source.name": "s",
    "source.key": "k",
}
# The key a list reads: the first kind of these among its filters, rarest first (names are nearly
# unique, defaults one per owner; a true `inactive` is rarer than a false one).
RAREST_FIRST = ("n", "k", "d", "starred", "w", "g", "b", "p", "s", "o", "i:1", "t", "e", "i:0")
PREFIXES = (3, 5)
MAX_WORD_KEYS = 4_000  # a description of 10,000 characters holds at most 3,334 (2 per 6 characters)
MAX_KEYS = 4_096
MAX_Q_WORDS = 10
WORD = re.compile(r"[^\W_]+")


def words(text):
    return WORD.findall(text.casefold())


def without_keys(doc):
    """`doc` as a resource: what it is found by is derived, never part of a version or a reply."""
    return {field: value for field, value in doc.items() if field != FIELD}


def _field(doc, path):
    """The value at `path` in `doc`, a field or a dotted path into a nested one (`source.key`)."""
    for part in path.split("."):
        doc = doc.get(part) if isinstance(doc, dict) else None
    return doc


def _value(value):
    return ("1" if value else "0") if isinstance(value, bool) else str(value)


def _text_of(doc):
    return " ".join([doc.get("name") or "", doc.get("description") or "", *doc.get("tags", ())])


def _word_terms(doc):
    """`w:` terms of the document's words, in the order they come, at most MAX_WORD_KEYS."""
    found = dict.fromkeys(f"w:{word[:n]}" for word in words(_text_of(doc)) for n in PREFIXES if len(word) >= n)
    return list(found)[:MAX_WORD_KEYS]


def terms(doc, fields):
    """The plain term ("") and a term per value of each of `fields`, then the word terms."""
    found = [""]
    for field in fields:
        value = _field(doc, field)
        for one in value if isinstance(value, list) else [value]:
            if one is not None:
                found.append(f"{CODES[field]}:{_value(one)}")
    return list(dict.fromkeys(found)) + _word_terms(doc)


def key(scope, term):
    return f"{scope}{SEP}{term}" if term else scope


def document_keys(scopes, named, doc_terms, starred_by=()):
    """Every scope in `scopes` with every term; the users in `named` too while the keys stay within
    MAX_KEYS, else only their plain key and INCOMPLETE; a key per user who starred it."""
    within = (len(scopes) + len(named)) * len(doc_terms) <= MAX_KEYS
    found = [key(s, t) for s in (*scopes, *(named if within else ())) for t in doc_terms]
    if not within:
        found += [key(user, t) for user in named for t in ("", INCOMPLETE)]
    return found + [key(STARS, user) for user in starred_by]


def _holds(doc, field, value):
    """Whether `doc` has `value` in `field`, as MongoDB compares them (an array field matches a
    value it contains)."""
    held = _field(doc, field)
    return held == value or (isinstance(held, list) and value in held)


def _rarity(term):
    return RAREST_FIRST.index(term if term in RAREST_FIRST else term.split(":", 1)[0]), -len(term)


@dataclass(frozen=True)
class ListQuery:
    """What a page reads: the documents one of `branches` (flat equality filters) finds, joined
    with what is kept of them elsewhere (`with_parts` of a list of them), that `accepts` keeps;
    `plain` when no filter narrows it. A page reads them without their keys (derived, never part
    of a reply) unless `with_keys`."""

    branches: tuple
    accepts: Callable[[dict], bool]
    plain: bool
    with_keys: bool = False
    with_parts: Callable[[list], list] | None = None


def list_query(filters, scopes, username, args, readable, also=None, with_parts=None):
    """The query of a list for the caller `username`, who reads with `scopes` (their own first) and
    may read what `readable` accepts: the rarest key among the filters in `args` (`filters` maps
    list parameters to fields), and a test of every filter, of `q` words the key only approaches,
    of `starred` and of `also` (a filter that needs another resource, such as a fit), of the
    documents joined `with_parts`."""
    conditions = [
        (field, value)
        for arg, field in filters.items()
        if arg in args
        for value in (args[arg] if isinstance(args[arg], list) else [args[arg]])
    ]
    wanted = args.get("q", [])  # its words (`words`), read once from the query string
    candidates = [f"{CODES[field]}:{_value(value)}" for field, value in conditions]
    candidates += [f"w:{word[:5] if len(word) >= 5 else word[:3]}" for word in wanted if len(word) >= 3]
    starts = [re.compile(r"(?<![^\W_])" + re.escape(part)) for part in wanted]  # where a word starts with it
    starred = args.get("starred")
    if starred:
        candidates.append("starred")
    rarest = min(candidates, key=_rarity, default="")
    if rarest == "starred":
        keys = [key(STARS, username)]
    else:
        keys = [key(scope, rarest) for scope in scopes]
        if rarest:  # what a resource with too many keys shares with them or their teams
            keys += [key(scope, INCOMPLETE) for scope in scopes if scope not in (ADMINS, EVERYONE)]

    def accepts(doc):
        if not readable(doc) or not all(_holds(doc, field, value) for field, value in conditions):
            return False
        if starred is not None and (username in doc.get("starredBy", ())) != starred:
            return False
        if starts:
            text = _text_of(doc).casefold()
            if not all(start.search(text) for start in starts):
                return False
        return also is None or also(doc)

    plain = not candidates and not wanted and starred is None and also is None
    return ListQuery(tuple({FIELD: one} for one in keys), accepts, plain, with_parts=with_parts)
