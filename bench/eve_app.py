"""The peer `make bench` compares the service with: Python-Eve (PyPI's Eve) serving the same
blueprints as an Eve user would write them, a Cerberus schema of the blueprint's fields behind
Basic auth, on the same database server and write concern as the service and the floor.

Eve is given its fastest settings, so that the comparison is with the best it does: no count of
the collection on a list page, no HATEOAS links."""

import hmac
import os

from eve import Eve
from eve.auth import BasicAuth

USERNAME, PASSWORD = os.environ["BASELINE_CREDENTIALS"].split(":", 1)
NAME = {"type": "string", "required": True, "empty": False, "maxlength": 200}
USERS = {"type": "list", "maxlength": 1000, "schema": {"type": "string", "regex": r"^[A-Za-z0-9_.@-]{1,64}$"}}


class Credentials(BasicAuth):
    def check_auth(self, username, password, allowed_roles, resource, method):
        return hmac.compare_digest(username, USERNAME) & hmac.compare_digest(password, PASSWORD)


SETTINGS = {
    "MONGO_URI": os.environ["MONGO_URI"],
    "MONGO_DBNAME": "eve",
    # Eve gives its collections only the `w` of this (journaling does not change the embedded
    # server's insert rate: README, "Performance")
    "MONGO_WRITE_CONCERN": {"w": "majority", "journal": True},
    "RESOURCE_METHODS": ["GET", "POST"],
    "ITEM_METHODS": ["GET"],
    "PAGINATION_LIMIT": 50,
    "OPTIMIZE_PAGINATION_FOR_SPEED": True,
    "HATEOAS": False,
    "DOMAIN": {
        "blueprints": {
            "schema": {
                "name": NAME,
                "version": {"type": "string", "required": True, "regex": r"^[0-9A-Za-z.+_-]{1,64}$"},
                "description": {"type": "string", "maxlength": 10_000},
                "blueprintType": {"type": "string", "required": True, "regex": r"^[A-Za-z0-9_.-]{1,64}$"},
                "yml": {"type": "string", "maxlength": 512 * 1024},
                "entitlementType": {"type": "string", "allowed": ["OWNER", "PUBLIC", "CUSTOM"]},
                "entitledUsers": USERS,
                "inactive": {"type": "boolean"},
                "tags": {
                    "type": "list",
                    "maxlength": 20,
                    "schema": {"type": "string", "regex": r"^[A-Za-z0-9_.-]{1,64}$"},
                },
            },
        },
    },
}

app = Eve(settings=SETTINGS, auth=Credentials)
