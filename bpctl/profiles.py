"""Profiles: list, show, create, change, delete."""

import click

from bpctl import show
from bpctl.common import FOR_TEAM, OUTPUT, cli, given, note, pass_session
from bpctl.errors import Refused
from bpctl.names import named, source_of


@cli.group()
def profile():
    """Profiles: list, show, create, change, delete; export one as Kubernetes' quota objects."""


@profile.command("ls")
@click.option("--name", help="Exactly this name.")
@OUTPUT
@pass_session
def list_profiles(session, name, output):
    """List your profiles (an admin: everyone's), newest first."""
    items = list(session.items("/profiles", {"name": name}))
    show.listed(
        items,
        {
            "ID": "id",
            "NAME": "name",
            "DEFAULT": "defaultProfile",
            **{resource.upper(): _cap(resource, key) for resource, key in show.RESOURCES.items()},
            "CONTAINER DEFAULT": _per_container("containerDefaults"),
            "CONTAINER MAX": _per_container("containerMax"),
            "OWNER": "owner",
            "SOURCE": source_of,
        },
        output,
    )


def _cap(resource, key):
    return lambda item: show.amount(resource, (item.get("limits") or {}).get(key))


def _per_container(field):
    """A profile's container defaults (or maximum): `256Mi/0.25`, `-` for a member not set."""

    def cell(item):
        given = (item.get("limits") or {}).get(field) or {}
        shown = [show.amount(resource, given.get(show.RESOURCES[resource])) or "-" for resource in ("memory", "cpu")]
        return None if shown == ["-", "-"] else "/".join(shown)

    return cell


PROFILE_OPTIONS = (
    click.option("--memory", help="The memory cap: 2Gi, 512Mi..."),
    click.option("--cpu", help="The CPU cap: 2, 0.5, 500m..."),
    click.option("--containers", help="The most containers."),
    click.option("--storage", help="The storage cap: 10Gi..."),
    click.option("--default-memory", help="What a container that declares no memory counts (and is given): 256Mi..."),
    click.option("--default-cpu", help="What a container that declares no CPU counts (and is given): 250m..."),
    click.option("--max-memory", help="The most memory one container may have."),
    click.option("--max-cpu", help="The most CPU one container may have."),
    click.option("--share", "shared", multiple=True, metavar="USER", help="A user who may read it and fit to it."),
    click.option(
        "--pod-security",
        type=click.Choice(["restricted", "baseline", "privileged"]),
        help="The Pod Security Standards level it holds to (baseline when created; privileged: admins).",
    ),
    click.option(
        "--allow-kind",
        "allow_kinds",
        multiple=True,
        metavar="GROUP/KIND",
        help="A kind the service cannot measure its instances may hold (admins; repeat).",
    ),
    click.option("--share-team", "shared_teams", multiple=True, metavar="TEAM", help="A team whose members use it."),
    click.option(
        "--environment", "environments", multiple=True, metavar="ENV", help="Where its instances go (repeat)."
    ),
    click.option("--domain", help="Its cluster's domain: a route without a host answers on <instance>.<domain>."),
    click.option("--ingress-class", help="The IngressClass of its instances' Ingresses."),
    click.option("--tls-issuer", help="The cert-manager ClusterIssuer that certifies their hosts."),
    click.option("--storage-class", help="The StorageClass of every claim."),
    click.option("--gateway", metavar="NAMESPACE/NAME", help="The Gateway an HTTPRoute attaches to."),
    click.option("--image-pull-secret", "pull_secrets", multiple=True, metavar="SECRET", help="Repeat for several."),
    click.option(
        "--proxy-entrypoint", "proxy_entrypoints", multiple=True, help="Traefik's, on a Docker host (repeat)."
    ),
    click.option("--proxy-cert-resolver", help="The certificate resolver a route with TLS names there."),
    click.option("--proxy-publish/--no-proxy-publish", default=None, help="Keep routed ports published on the host."),
    click.option("--headroom-pods", type=click.IntRange(0, 100), help="Pods the cluster runs beside an instance's."),
    click.option("--headroom-memory", metavar="QUANTITY", help="Memory for them, added to each instance's quota."),
    click.option("--headroom-cpu", metavar="QUANTITY", help="CPU for them, added to each instance's quota."),
    click.option("--price-cpu", type=click.FloatRange(0), help="A CPU a month (instead of the operator's PRICES)."),
    click.option("--price-memory", type=click.FloatRange(0), help="A GiB of memory a month."),
    click.option("--price-storage", type=click.FloatRange(0), help="A GiB of storage a month."),
    click.option("--default", "default", is_flag=True, default=None, help="Make it your default profile."),
    OUTPUT,
)
# what `profile get` shows of its cluster conventions and prices; `_members` reads the options that set them
CLUSTER = {
    "domain": "domain",
    "ingress class": "ingressClass",
    "tls issuer": "tlsIssuer",
    "storage class": "storageClass",
    "gateway": "gateway",
    "pull secrets": "imagePullSecrets",
}
PRICES = {"cpu": "cpu", "memory": "memoryGiB", "storage": "storageGiB"}
HEADROOM = {"pods": "pods", "memory": "memory", "cpu": "cpu"}
PROXY = {"entrypoints": "entrypoints", "cert resolver": "certResolver", "publish": "publish"}
PROXY_WORDS = (("network", "network"), ("resolver", "certResolver"))


def profile_options(command):
    for option in reversed(PROFILE_OPTIONS):
        command = option(command)
    return command


def _profile_body(options):
    """The fields the options give (a change sends only those; a member of the container defaults
    or maximum, the cluster conventions or the prices not given keeps its value)."""
    body = given(
        memoryCap=options["memory"],
        cpuCap=options["cpu"],
        containerCap=options["containers"],
        storageCap=options["storage"],
        podSecurity=options["pod_security"],
        defaultProfile=options["default"],
        containerDefaults=given(memory=options["default_memory"], cpu=options["default_cpu"]) or None,
        containerMax=given(memory=options["max_memory"], cpu=options["max_cpu"]) or None,
        cluster=given(
            **_members(CLUSTER, options),
            headroom=_members(HEADROOM, options, "headroom_") or None,
            proxy=_members(PROXY, options, "proxy_") or None,
        )
        or None,
        prices=_members(PRICES, options, "price_") or None,
    )
    for field, option in (
        ("allowKinds", "allow_kinds"),
        ("entitledUsers", "shared"),
        ("entitledTeams", "shared_teams"),
        ("environments", "environments"),
    ):
        if options[option]:
            body[field] = list(options[option])
    return body


def _members(shown, options, prefix=""):
    """The members of an object (the cluster conventions, the prices) that the options give: each
    read from the option's parameter named with `prefix` and the member's words in `profile get`
    (`tls issuer`: `tls_issuer`; `pull secrets`: `pull_secrets`, which --image-pull-secret gives)."""
    values = {key: options[prefix + label.replace(" ", "_")] for label, key in shown.items()}
    return given(**{key: (list(value) or None) if isinstance(value, tuple) else value for key, value in values.items()})


def _shown(found, output, words):
    if output == "json":
        show.as_json(found)
    else:
        click.echo(f"{found['name']}: {words} ({found['id']}){', your default' if found['defaultProfile'] else ''}")


@profile.command("create")
@click.argument("name")
@profile_options
@FOR_TEAM
@click.option("--duplicate", is_flag=True, help="Create it even though its owner has a profile of that name.")
@pass_session
def create_profile(session, name, output, owner, duplicate, **options):
    """Create a profile (yours, or with --owner a team's); refused (exit 3) when its owner has one
    of that name already, since every command naming it would then ask which one."""
    owner = owner or session.username
    if not duplicate and (
        same := [found["id"] for found in session.items("/profiles", {"name": name, "owner": owner})]
    ):
        raise Refused(
            f"{owner} has a profile named {name!r} already ({', '.join(same)}): change it with "
            "`bpctl profile change`, or give --duplicate for a second."
        )
    body = {"name": name, "owner": owner, **_profile_body(options)}
    _shown(session.send("POST", "/profiles", body), output, "created")


@profile.command("get")
@named("name", "profile")
@OUTPUT
@pass_session
def get_profile(session, name, output):
    """Show a profile (its id or name): caps, container defaults and maximum, usage, who shares it."""
    found = session.profile(name)
    if output == "json":
        show.as_json(found)
        return
    limits = found["limits"]
    show.fields(
        [
            ("id", found["id"]),
            ("name", found["name"]),
            ("owner", found["owner"]),
            ("default", found["defaultProfile"]),
            *((resource, show.amount(resource, limits[key])) for resource, key in show.RESOURCES.items()),
            ("container default", _per_container("containerDefaults")(found)),
            ("container max", _per_container("containerMax")(found)),
            ("pod security", found.get("podSecurity")),
            ("allowed kinds", found.get("allowKinds")),
            ("shared with", found["entitledUsers"]),
            ("shared with teams", found.get("entitledTeams")),
            ("environments", found.get("environments")),
            *((name, (found.get("cluster") or {}).get(key)) for name, key in CLUSTER.items()),
            ("headroom", _headroom((found.get("cluster") or {}).get("headroom"))),
            ("proxy", _proxy((found.get("cluster") or {}).get("proxy"))),
            *((f"price {name}", (found.get("prices") or {}).get(key)) for name, key in PRICES.items()),
            ("instances", found["usage"]["instances"]),
            ("monthly", _monthly(found["usage"])),
        ]
    )


def _headroom(headroom):
    """A profile's headroom as `profile get` shows it: `2 pods, 128Mi, 200m`."""
    if not headroom:
        return None
    return ", ".join(
        f"{headroom.get('pods') or 0} pods" if key == "pods" else str(headroom.get(key) or 0) for key in HEADROOM
    )


def _proxy(proxy):
    """A profile's proxy conventions as `profile get` shows them: `websecure, resolver le, unpublished`."""
    if not proxy:
        return None
    said = [
        *(proxy.get("entrypoints") or ()),
        *(f"{words} {proxy[key]}" for words, key in PROXY_WORDS if proxy.get(key)),
    ]
    return ", ".join(said + (["routed ports unpublished"] if proxy.get("publish") is False else []))


def _monthly(usage):
    """What the profile's instances cost a month (`-` where nothing is priced)."""
    return None if usage.get("monthly") is None else f"{usage['monthly']:.2f} {usage['currency']}"


@profile.command("change")
@named("name", "profile")
@profile_options
@pass_session
def change_profile(session, name, output, **options):
    """Change the fields the options give of a profile (its id or name), on the version read."""
    found = session.profile(name)
    body = _profile_body(options)
    if not body:
        raise click.UsageError("nothing to change: give at least one option.")
    for field in ("containerDefaults", "containerMax", "cluster", "prices"):  # the service replaces them whole
        if field in body:
            body[field] = {**(found.get(field) or {}), **body[field]}
    for member in ("headroom", "proxy"):  # objects of the cluster's, merged as the cluster is
        if member in body.get("cluster", {}):
            kept = (found.get("cluster") or {}).get(member) or {}
            body["cluster"][member] = {**kept, **body["cluster"][member]}
    current = session.request("GET", f"/profiles/{found['id']}").headers["ETag"]
    _shown(session.send("PATCH", f"/profiles/{found['id']}", body, headers={"If-Match": current}), output, "changed")


@profile.command("delete")
@named("name", "profile")
@pass_session
def delete_profile(session, name):
    """Delete a profile (its id or name); refused while instances spend from it."""
    found = session.profile(name)
    session.send("DELETE", f"/profiles/{found['id']}")
    note(f"{found['name']}: deleted")


@profile.command("export")
@named("name", "profile")
@click.option("--namespace", help="The namespace the objects name (default: none, the one they are applied in).")
@pass_session
def export_profile(session, name, namespace):
    """Write a profile (its id or name) as a Kubernetes ResourceQuota and LimitRange, for
    `kubectl apply -f -`; `bpctl import FILE --format kubernetes-quota` reads them back."""
    found = session.profile(name)
    for chunk in session.stream(f"/profiles/{found['id']}/export", {"format": "kubernetes", "namespace": namespace}):
        click.echo(chunk, nl=False)
