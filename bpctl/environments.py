"""Environments: where instances run, registered by admins. Add a Docker Engine or a git
repository, list them with what was last observed there, remove one."""

from pathlib import Path

import click

from bpctl import show
from bpctl.common import OUTPUT, cli, from_environment, given, lists, note, pass_session
from bpctl.errors import Misused, Refused

TLS_FILES = {"ca": "ca.pem", "cert": "cert.pem", "key": "key.pem"}  # as Docker's DOCKER_CERT_PATH holds them


@cli.group("env")
def environment():
    """Where instances run (admins): add, ls, rm."""


@environment.command("add")
@click.argument("name")
@click.option(
    "--docker", "endpoint", metavar="ENDPOINT", help="unix:///path.sock, tcp://HOST:PORT or ssh://USER@HOST[/socket]."
)
@click.option("--git", "url", metavar="URL", help="https:// or ssh:// to the repository Argo CD or Flux follows.")
@click.option("--ref", help="git: the branch (default: the remote's HEAD).")
@click.option("--path", help="git: the folder the environment owns (default: the root).")
@click.option(
    "--tls-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), help="ca.pem, cert.pem, key.pem."
)
@click.option("--token-env", metavar="VAR", help="git: an https token, read from the environment variable VAR.")
@click.option("--deploy-key", type=click.File(), help="An ssh private key file (ssh:// endpoints and URLs).")
@click.option("--known-hosts", type=click.File(), help="The ssh host keys to trust (else the service's).")
@click.option("--interval", type=click.IntRange(15, 3600), help="Observe it every this many seconds (default 60).")
@click.option("--heal", is_flag=True, default=None, help="Deliver a drifted or missing instance again.")
@click.option("--proxy-network", metavar="NETWORK", help="docker: the external network its Traefik reaches apps on.")
@click.option("--entrypoint", "entrypoints", multiple=True, help="docker: an entrypoint of its Traefik (repeat).")
@click.option("--cert-resolver", metavar="NAME", help="docker: its Traefik's certificate resolver.")
@OUTPUT
@pass_session
def add(session, name, endpoint, url, tls_dir, token_env, deploy_key, known_hosts, output, **more):
    """Register the environment NAME: --docker ENDPOINT or --git URL. Credentials are read from
    files or the environment, never from the command line, and are never shown again."""
    if (endpoint is None) == (url is None):
        raise Misused("Give one of --docker ENDPOINT and --git URL.")
    body = given(
        name=name,
        kind="docker" if endpoint else "git",
        endpoint=endpoint,
        url=url,
        tls=_tls(tls_dir),
        token=from_environment(token_env, "--token-env"),
        deployKey=deploy_key.read() if deploy_key else None,
        knownHosts=known_hosts.read() if known_hosts else None,
        proxy=_proxy(more.pop("proxy_network"), more.pop("entrypoints"), more.pop("cert_resolver")),
        **more,
    )
    made = session.send("POST", "/environments", body)
    note(f"Environment {name} ({made['kind']}) registered: {made['id']}")
    if output == "json":
        show.as_json(made)


def _proxy(network, entrypoints, resolver):
    """The Traefik in front of an engine (None: none said)."""
    if network is None:
        if entrypoints or resolver:
            raise Misused("--entrypoint and --cert-resolver describe a proxy: give its --proxy-network too.")
        return None
    return given(network=network, entrypoints=list(entrypoints), certResolver=resolver)


@environment.command("rm")
@click.argument("name")
@pass_session
def remove(session, name):
    """Remove the environment NAME (refused while a profile names it)."""
    found = list(session.items("/environments", {"name": name}))
    if not found:
        raise Refused(f"no environment named {name!r}")
    session.send("DELETE", f"/environments/{found[0]['id']}")
    note(f"Environment {name} removed.")


def _tls(folder):
    """The client key pair and CA in `folder` (None: none given)."""
    if folder is None:
        return None
    missing = [file for file in TLS_FILES.values() if not (folder / file).is_file()]
    if missing:
        raise Misused(f"--tls-dir: {folder} holds no {', '.join(missing)}.")
    return {field: (folder / file).read_text() for field, file in TLS_FILES.items()}


def _state(item):
    state = item.get("state")
    if state is None:
        return "not observed yet"
    counted = ", ".join(f"{count} {name}" for name, count in (state.get("instances") or {}).items())
    seen = "reachable" if state.get("reachable") else f"unreachable: {state.get('error')}"
    return (
        f"{seen}"
        + (f"; {counted}" if counted else "")
        + (f"; {len(state['unmanaged'])} unmanaged" if state.get("unmanaged") else "")
    )


list_environments = lists(
    environment,
    "/environments",
    "List the environments with what was last observed there.",
    {
        "NAME": "name",
        "KIND": "kind",
        "WHERE": lambda item: item["endpoint"] or item["url"],
        "EVERY": lambda item: f"{item['interval']}s" + (", heals" if item["heal"] else ""),
        "STATE": _state,
    },
)
