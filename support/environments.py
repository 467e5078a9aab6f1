"""Environments for the tests that need no engine: a socket environments may name where none
listens (a delivery there fails, saying why), and alice's admission into it."""

SOCKET = "/var/run/docker.sock"
WEB = "services:\n  web:\n    image: busybox:local\n    command: [sleep, '3600']\n    init: true\n"


def docker(name="shared-docker", **more):
    """The body of a Docker environment at SOCKET."""
    return {"name": name, "kind": "docker", "endpoint": f"unix://{SOCKET}", **more}


def admission(deployable, **more):
    """The body of alice's instance `shop` in `shared-docker`, from the `deployable` fixture's ids."""
    profile, blueprint = deployable
    return {"name": "shop", "blueprint": blueprint, "profile": profile, "environment": "shared-docker", **more}
