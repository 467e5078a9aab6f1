"""fit and render: whether a blueprint fits a profile, and its definition filled in, written to
standard output and nothing else (exit 1 when it does not fit)."""

import sys

import click

from bpctl import show, values
from bpctl.common import OUTPUT, OWNER, TARGET, cli, note, pass_session
from bpctl.names import named


@cli.command(short_help="Whether it fits a profile (exit 1 if not).")
@named("blueprint", "blueprint")
@OWNER
@click.option("--profile", help="A profile's id or name (default: your default profile).")
@click.option(
    "--target",
    type=click.Choice(["compose", "kubernetes"]),
    help="Where it is deployed (default: its own format): on kubernetes, a Compose blueprint's volumes are 1Gi claims.",
)
@OUTPUT
@pass_session
def fit(session, blueprint, owner, profile, target, output):
    """Whether a blueprint fits a profile's caps; exit 1 when it does not (or cannot be told)."""
    found = session.blueprint(blueprint, owner)
    named = session.profile(profile) if profile else None
    query = {"profile": named["id"] if named else None, "target": target}
    result = session.get(f"/blueprints/{found['id']}/fit", {key: value for key, value in query.items() if value})
    if output == "json":
        show.as_json(result)
    else:
        show.fit(result)
        show.explained(result, named or session.default_profile(), (found["requirements"] or {}).get("unresolved"))
        unknown = "unknown: it has no requirements" if found["requirements"] is None else "unknown"
        click.echo({True: "fits", False: "does not fit"}.get(result["fits"], unknown))
    if result["fits"] is not True:
        sys.exit(1)


@cli.command(short_help="Write the definition filled in, nothing else.")
@named("blueprint", "blueprint")
@OWNER
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE", help="A value (repeat; the last wins).")
@click.option("-f", "--values", "files", type=click.File("r"), multiple=True, help="A YAML file of values (repeat).")
@click.option("--profile", help="Fit the result to this profile (id or name): exit 1 when it does not fit.")
@click.option("--maximize", metavar="NAME", help="Render at the most of this integer parameter that fits --profile.")
@click.option("--rev", type=click.IntRange(1), help="Render a kept revision.")
@click.option("-o", "--output", type=click.Choice(["yaml", "json"]), default="yaml", help="The definition, or JSON.")
@TARGET
@click.option("--namespace", help="With --target kubernetes: the namespace written into every object.")
@pass_session
def render(session, blueprint, owner, settings, files, profile, maximize, rev, output, target, volume_sizes, namespace):
    """Write a blueprint's definition filled in with values, and nothing else, to standard output.

    With --profile, a definition that does not fit is not written (exit 1; the fit goes to
    standard error), so that a pipe into `docker compose -f - up` deploys nothing.
    """
    if maximize and not profile:
        raise click.BadParameter("needs --profile: the most that fits which profile?", param_hint="--maximize")
    found = session.blueprint(blueprint, owner)
    template = session.get(f"/blueprints/{found['id']}/revisions/{rev}") if rev else found
    properties = (template.get("parameters") or {}).get("properties", {})
    body = {"values": values.gather(files, settings, properties)}
    if profile:
        body["profile"] = session.profile(profile)["id"]
    body.update(values.target(target, volume_sizes, namespace=namespace))
    path = f"/blueprints/{found['id']}" + (f"/revisions/{rev}" if rev else "") + "/render"
    rendered = session.send("POST", path, {**body, "maximize": maximize} if maximize else body)
    if maximize:
        most = rendered["maximized"][maximize]
        if most is None:
            note(f"no value of {maximize} fits the profile.")
            sys.exit(1)
        note(f"{maximize}={most}: the most that fits the profile")
        maximized = rendered["maximized"]
        rendered = session.send("POST", path, {**body, "values": {**body["values"], maximize: most}})
        rendered["maximized"] = maximized
    show.warn_unresolved(rendered["requirements"])
    show.notes(rendered.get("notes") or [])
    for route in rendered.get("routes") or []:  # the address, before anything is deployed
        click.echo(f"answers on {show.route(route)}", err=True)
    fits = rendered["fit"] is None or rendered["fit"]["fits"] is True
    if output == "json":
        show.as_json(rendered)
    elif fits:
        click.echo(rendered["yml"], nl=False)
    if not fits:
        show.fit(rendered["fit"], err=True)
        note("does not fit: nothing written" if output == "yaml" else "does not fit")
        sys.exit(1)
