"""An app whose environments may name support/environments.py's socket, and alice's profile and
blueprint deployable there."""

import pytest

from support.environments import SOCKET, WEB, docker


@pytest.fixture
def allowed(app):
    app.config.update(
        ENVIRONMENT_SOCKETS=(SOCKET,), ENVIRONMENT_HOSTS=(), ENVIRONMENT_PRIVATE=False, DELIVERY_SECONDS=30
    )
    return app


@pytest.fixture
def deployable(api, allowed):
    """alice's profile, which the admin lets use `shared-docker`, and her blueprint: (profile, blueprint) ids."""
    assert api.post("/environments", json=docker(), user="admin").status == 201
    profile = api.post("/profiles", json={"name": "team", "containerDefaults": {"memory": "64Mi"}}, user="alice").json
    assert api.patch(f"/profiles/{profile['id']}", json={"environments": ["shared-docker"]}, user="admin").status == 200
    blueprint = api.post("/blueprints", json={"name": "web", "blueprintType": "compose", "yml": WEB}, user="alice")
    return profile["id"], blueprint.json["id"]
