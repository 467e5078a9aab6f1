"""A client no one here wrote: openapi-python-client generates it from /openapi.json, and it is
used unchanged against the running service."""

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.http import basic

pytestmark = [pytest.mark.slow, pytest.mark.parametrize("app", ["socket"], indirect=True)]


@pytest.fixture
def generated(app, tmp_path):
    spec = tmp_path / "openapi.json"
    spec.write_text(json.dumps(app.test_client().get("/openapi.json").json))
    bin_dir = str(Path(sys.executable).parent)
    run = subprocess.run(
        [
            os.path.join(bin_dir, "openapi-python-client"),
            "generate",
            "--path",
            str(spec),
            "--output-path",
            str(tmp_path / "service_client"),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"]},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        yield lambda name: importlib.import_module(f"service_client.{name}")
    finally:
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m == "service_client" or m.startswith("service_client.")]:
            del sys.modules[module]


def test_create_read_list_delete_with_the_generated_client(generated, live_port):
    client = generated("client").Client(
        base_url=f"http://127.0.0.1:{live_port}",
        headers={"Authorization": basic("alice")},
        raise_on_unexpected_status=True,
    )
    models = generated("models")

    profiles = {
        name: generated(f"api.profiles.{name}")
        for name in ("post_profiles", "get_profiles_id", "get_profiles", "delete_profiles_id")
    }
    created = profiles["post_profiles"].sync(
        client=client, body=models.Profile(name="generated", memory_cap="1Gi", cpu_cap=0.5)
    )
    assert isinstance(created, models.Profile)
    assert created.owner == "alice" and created.cpu_cap == "0.5" and created.limits.memory_bytes == 2**30
    assert profiles["get_profiles_id"].sync(client=client, id=created.id).name == "generated"
    page = profiles["get_profiles"].sync(client=client, limit=10)
    assert [p.id for p in page.items] == [created.id] and page.next_ is None
    assert profiles["delete_profiles_id"].sync_detailed(client=client, id=created.id).status_code == 204
    gone = profiles["get_profiles_id"].sync(client=client, id=created.id)
    assert isinstance(gone, models.Problem) and gone.status == 404

    blueprints = {
        name: generated(f"api.blueprints.{name}")
        for name in (
            "post_blueprints",
            "get_blueprints_id",
            "get_blueprints",
            "patch_blueprints_id",
            "delete_blueprints_id",
        )
    }
    body = models.Blueprint(
        name="web", yml="services:\n  web:\n    image: nginx\n", entitlement_type=models.BlueprintEntitlementType.PUBLIC
    )
    made = blueprints["post_blueprints"].sync(client=client, body=body)
    assert made.entitlement_type == models.BlueprintEntitlementType.PUBLIC
    assert made.yml == "services:\n  web:\n    image: nginx\n"  # as sent
    assert blueprints["get_blueprints_id"].sync(client=client, id=made.id).name == "web"
    assert made.id in [b.id for b in blueprints["get_blueprints"].sync(client=client).items]
    patched = blueprints["patch_blueprints_id"].sync(client=client, id=made.id, body=models.BlueprintPatch(name="web2"))
    assert patched.rev == 2 and patched.name == "web2"
    restore = generated("api.revisions.post_blueprints_id_revisions_rev_restore")
    restored = restore.sync(client=client, id=made.id, rev=1)
    assert isinstance(restored, models.Blueprint) and (restored.rev, restored.name) == (3, "web")
    star = generated("api.blueprints.put_blueprints_id_star")
    assert star.sync_detailed(client=client, id=made.id).status_code == 204
    starred = blueprints["get_blueprints_id"].sync(client=client, id=made.id)
    assert (starred.stars, starred.starred) == (1, True)
    parameters = {
        "type": "object",
        "properties": {
            "REPLICAS": {"type": "integer", "default": 2, "minimum": 1},
            "KEY": {"type": "string", "writeOnly": True, "x-generate": "[a-z]{8}"},
        },
    }
    template = blueprints["post_blueprints"].sync(
        client=client,
        body=models.Blueprint.from_dict(
            {
                "blueprintType": "compose",
                "yml": "services:\n  web:\n    image: x\n    scale: ${REPLICAS}\n",
                "parameters": parameters,
            }
        ),
    )
    assert template.to_dict()["parameters"] == parameters and template.requirements.containers == 2
    render = generated("api.blueprints.post_blueprints_id_render")
    rendered = render.sync(client=client, id=template.id, body=models.RenderArgs.from_dict({"values": {"REPLICAS": 3}}))
    assert isinstance(rendered, models.Render) and rendered.yml.endswith("scale: 3\n")
    assert rendered.to_dict()["values"] == {"REPLICAS": 3, "KEY": None} and rendered.requirements.containers == 3
    assert blueprints["delete_blueprints_id"].sync_detailed(client=client, id=made.id).status_code == 204
    assert blueprints["get_blueprints_id"].sync(client=client, id=made.id).status == 404
