"""How a list is served: the keys a stored document is found by, and the plan of a page.

Every profile and blueprint carries `keys`, and one index, `(keys, _id)`, serves every list. A
key is a scope, who may read the document (a username; `*` for everyone, on PUBLIC blueprints;
`!` for admins, on the rest), alone or followed by one term, a value a list can ask for
(`n:` name, `t:` type, `g:` tag, `w:` the prefix of a word...); stars are keys too (STARS).
Whoever writes `keys` does so on the condition that they are still the ones it read, so no
change, star or backfill undoes another's. A page is then one equality per
scope of the caller (`alice` and `*`; an admin's `!` and `*`), windowed on `_id` by
`pagination.page`, and reads only documents that match: the cost of a page is that of `limit`
documents whatever the filter's selectivity and the collection's size (docs/scaling.md).

Words (`q`) are runs of letters and digits, case-folded; a document is found by the first 3 and
the first 5 characters of each of its words (`postgresql` by `pos` and `postg`), so a `q` word of
3 characters or more has a key that finds a superset of its matches, which the page checks. A
document holds at most MAX_WORD_KEYS word keys (every document within the contract's limits
fits), and at most MAX_KEYS keys in all: past it, the users a CUSTOM blueprint names get only
their plain key and INCOMPLETE, which a filtered page of theirs also reads.

Whatever an index served, every document of a page is checked here against every filter and
readability, so a combination, `q` words shorter than 3 characters, `starred=false` and a fit are
applied to what the most selective key found (RANK), reading at most MOST_EXAMINED documents.
"""

import re

import marshmallow as ma

from app.model.accounts import Username
from app.model.fields import Text
from app.storage.pagination import PageArgs

SEP = "\x1f"  # between scope and term: a character no username or value here contains
EVERYONE, ADMINS, INCOMPLETE = "*", "!", "~"
STARS = "+"  # `+<SEP>alice`: a blueprint alice starred (what she may read of them is checked)
CODES = {"name": "n", "owner": "o", "blueprintType": "t", "entitlementType": "e", "inactive": "i",
         "defaultProfile": "d", "tags": "g"}  # fmt: skip
# the key a page is read from: the first kind of these among its filters (names are nearly
# unique, defaults one per owner; a true `inactive` is rarer than a false one)
RANK = ("n", "d", "starred", "w", "g", "o", "i:1", "t", "e", "i:0")
PREFIXES = (3, 5)
MAX_WORD_KEYS = 4_000  # a description of 10,000 characters holds at most 3,334 (2 per 6 characters)
MAX_KEYS = 4_096
MAX_Q_WORDS = 10
MOST_EXAMINED = 10_000
WORD = re.compile(r"[^\W_]+")


def words(text):
    return WORD.findall(text.casefold())


def _q_words(value):
    found = words(value)
    if not found:
        raise ma.ValidationError("Needs a word: letters or digits.")
    if len(found) > MAX_Q_WORDS:
        raise ma.ValidationError(f"At most {MAX_Q_WORDS} words.")


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
        validate=[ma.validate.Length(1, 200), _q_words],
        metadata={
            "description": "Words (runs of letters and digits, at most 10): each must start a word of the "
            "name, description or tags, compared case-insensitively (Unicode case folding)."
        },
    )
    owner = Username(metadata={"description": "Only resources of this owner."})


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
        value = doc.get(field)
        for one in value if isinstance(value, list) else [value]:
            if one is not None:
                found.append(f"{CODES[field]}:{_value(one)}")
    return list(dict.fromkeys(found)) + _word_terms(doc)


def key(scope, term):
    return f"{scope}{SEP}{term}" if term else scope


def keys(scopes, named, doc_terms, starred_by=()):
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
    held = doc.get(field)
    return held == value or (isinstance(held, list) and value in held)


def _rank(term):
    return RANK.index(term if term in RANK else term.split(":", 1)[0]), -len(term)


def plan(store, user, args, also=None):
    """(branches, keep, MOST_EXAMINED, densest) of a page of what `user` may read in `store`,
    narrowed by the filters among `args` and the predicate `also` (a filter that needs another
    resource); `densest` bounds the windows while documents without keys are read too."""
    conditions = [(field, value) for arg, field in store.filters.items() if arg in args
                  for value in (args[arg] if isinstance(args[arg], list) else [args[arg]])]  # fmt: skip
    wanted = words(args["q"]) if "q" in args else []
    candidates = [f"{CODES[field]}:{_value(value)}" for field, value in conditions]
    candidates += [f"w:{word[:5] if len(word) >= 5 else word[:3]}" for word in wanted if len(word) >= 3]
    me, starred = user["username"], args.get("starred")
    if starred:
        candidates.append("starred")
    scopes = store.caller_scopes(user)
    driver = min(candidates, key=_rank, default="")
    if driver == "starred":
        branches = [{"keys": key(STARS, me)}]
    else:
        branches = [{"keys": key(scope, driver)} for scope in scopes]
        if driver and scopes[0] == me:  # what a CUSTOM blueprint with too many keys shares with them
            branches.append({"keys": key(me, INCOMPLETE)})
    densest = None
    if store.pending():
        branches.append({"keys": None})  # stored before keys existed, until the backfill is done
        densest = store.densest()

    def keep(doc):
        if not store.can_read(doc, user) or not all(_holds(doc, field, value) for field, value in conditions):
            return False
        if starred is not None and (me in doc.get("starredBy", ())) != starred:
            return False
        if wanted:
            held = words(_text_of(doc))
            if not all(any(word.startswith(part) for word in held) for part in wanted):
                return False
        return also is None or also(doc)

    return branches, keep, MOST_EXAMINED, densest
