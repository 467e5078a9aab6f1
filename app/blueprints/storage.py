"""Blueprints in MongoDB: who may read them (owner, everyone, or the users and teams named), the
rule of `entitledUsers` (existing users, only with CUSTOM) and `entitledTeams` (existing teams,
with TEAM or CUSTOM), `requirements`, computed from the
definition on every write that changes it, and stars (the users in `starredBy`).
"""

from app import definitions
from app.blueprints.history.storage import store as history
from app.errors import Conflict, Invalid
from app.model import yamlguard
from app.model.accounts import shared_with
from app.storage import list_keys
from app.storage.resource_store import MAX_ATTEMPTS, ResourceStore


def entitlement_changes(changes, stored=None):
    """`entitledUsers` only with CUSTOM, `entitledTeams` only with TEAM or CUSTOM; a kind that
    takes none clears them. Names are kept once, in order."""
    kind = changes.get("entitlementType", (stored or {}).get("entitlementType", "OWNER"))
    for field, kinds in (("entitledUsers", ("CUSTOM",)), ("entitledTeams", ("CUSTOM", "TEAM"))):
        sent = changes.get(field)
        if kind not in kinds:
            if sent:
                raise Invalid({field: [f"Allowed only with entitlementType {' or '.join(kinds)}."]})
            changes[field] = []
        elif sent is not None or stored is None or field in changes:  # a PUT without them: none
            changes[field] = list(dict.fromkeys(sent or []))
    return changes


class Blueprints(ResourceStore):
    collection = "blueprints"
    noun = "blueprint"
    filters = {
        "name": "name",
        "owner": "owner",
        "blueprintType": "blueprintType",
        "entitlementType": "entitlementType",
        "inactive": "inactive",
        "tag": "tags",
        "source": "source.name",
        "sourceKey": "source.key",
    }
    public = True
    # Readings of other resources, given by app/joins/across.py `connect` (no resource imports another)
    made_from = None  # (blueprint id, most) -> how many instances were made from it, up to `most`
    check_entitled = None  # (changes, caller) -> a 422 where a user or team it names does not exist
    retired_indexes = (
        "owner_newest",
        "entitlement_newest",
        "entitled_newest",
        "tags_newest",
        "starred_newest",
        "newest",
        "one_per_source",
    )

    def create_indexes(self):
        self.create_source_index()
        super().create_indexes()

    def scopes(self, doc):
        """Everyone for PUBLIC; else its owner and admins, and the users and teams named (with
        CUSTOM and TEAM; empty otherwise: entitlement_changes)."""
        if doc.get("entitlementType") == "PUBLIC":
            return [list_keys.EVERYONE], []
        return [list_keys.ADMINS, doc["owner"]], shared_with(doc)

    def seen_by(self, doc, user):
        """With how many starred it, and whether `user` did."""
        starred_by = doc.get("starredBy", ())
        return {**super().seen_by(doc, user), "stars": len(starred_by), "starred": user["username"] in starred_by}

    def star(self, id_text, user, starred):
        """Star (or unstar) a blueprint the user may read: `starredBy` and the keys it is found by,
        written together on the condition that the keys are still the ones read, so the count is
        always the number of users in `starredBy` and no star is lost to a concurrent one."""
        for _ in range(MAX_ATTEMPTS):
            doc, me = self.readable(id_text, user), user["username"]
            held = doc.get("starredBy", [])
            if (me in held) == starred:
                return
            stars = [*held, me] if starred else [name for name in held if name != me]
            changes = self.rekeyed(doc, {"starredBy": stars})
            if (
                self.coll()
                .update_one({"_id": doc["_id"], list_keys.FIELD: doc.get(list_keys.FIELD)}, {"$set": changes})
                .matched_count
            ):
                return
        raise RuntimeError(f"star of {id_text} kept losing races")

    def before_write(self, stored, changes):
        """The version a change replaces is kept first (history/storage.py)."""
        if stored is not None:
            history.keep(stored)

    def deletable(self, doc):
        """A blueprint no instance was made from (a 409 naming how many, at most MAX_NAMED)."""
        made = self.made_from(doc["_id"], MAX_NAMED)
        if made:
            many = made > 1
            count = f"{made}{'+' if made == MAX_NAMED else ''} instance{'s' if many else ''}"
            raise Conflict(f"{count} of this blueprint {'exist' if many else 'exists'}: delete them first.")
        return {}

    def after_delete(self, doc):
        history.forget(doc["_id"])

    def apply_rules(self, changes, stored, user):
        """The body's rules; `requirements` measured from a changed definition (parsed once, by
        the body's field), which is stored as its text."""
        changes = entitlement_changes(changes, stored)
        if stored is None and not changes.get("tags"):
            changes.pop("tags", None)  # stored only when there are some (the tag index is sparse)
        if stored is None or {"yml", "blueprintType", "parameters"} & set(changes):
            merged = {**(stored or {}), **changes}
            changes["requirements"] = definitions.requirements(
                merged.get("blueprintType"), merged.get("yml"), merged.get("parameters")
            )
        if "yml" in changes:
            changes["yml"] = yamlguard.text_of(changes["yml"])
        self.check_entitled(changes, user)
        return changes


MAX_NAMED = 1000  # instances a refused delete counts

store = Blueprints()
