"""What bpctl shows: tables for people, JSON for scripts, amounts in the units people read."""

import json

import click


def as_json(data):
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def listed(items, columns, output):
    """A list: JSON for scripts (`-o json`), else a table of `columns`."""
    if output == "json":
        as_json(items)
    else:
        table(items, columns)


def table(rows, columns, err=False):
    """`rows` (dicts) as aligned columns; `columns` maps each heading to a key or a function."""
    for line in lines(rows, columns):
        click.echo(line, err=err)


def lines(rows, columns):
    """The lines of `table`: the headings, then a line per row."""
    cells = [
        [_cell(column(row) if callable(column) else row.get(column)) for column in columns.values()] for row in rows
    ]
    widths = [max([len(heading)] + [len(line[i]) for line in cells]) for i, heading in enumerate(columns)]
    return [
        "  ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip()
        for line in [list(columns), *cells]
    ]


def fields(pairs, err=False):
    """ "name: value" lines, names aligned."""
    width = max(len(name) for name, _ in pairs)
    for name, value in pairs:
        click.echo(f"{name + ':':{width + 1}} {_cell(value)}", err=err)


def _cell(value):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(map(str, value)) or "-"
    return str(value).replace("\n", " ")


# a resource of a fit -> its key in `requirements` and in a profile's `limits`
RESOURCES = {"memory": "memoryBytes", "cpu": "cpuMillis", "containers": "containers", "storage": "storageBytes"}
ROOM = {"REQUIRED": "required", "USED": "used", "CAP": "cap", "AVAILABLE": "available"}  # a 409's `quota`
UNITS = ((1024**4, "Ti"), (1024**3, "Gi"), (1024**2, "Mi"), (1024, "Ki"))


def amount(resource, value):
    """A quantity of `limits` (bytes, millicores, containers) as a person writes it."""
    if value is None:
        return None
    if resource in ("memory", "storage"):
        for size, unit in UNITS:
            if abs(value) >= size:
                return f"{value / size:.4g}{unit}"
        return f"{value}B"
    if resource == "cpu":  # in CPUs alone, whatever the caps were written in: 0.5, 2, 1.5
        return f"{value / 1000:.3f}".rstrip("0").rstrip(".")
    return str(value)


def needs(requirements):
    """What a definition needs, in words: `2 containers, 512Mi memory, cpu undeclared`. An amount
    some container leaves undeclared (`unbounded`) is a floor (`at least 256Mi memory`), or
    `undeclared` where none declares it; storage shows where some is claimed."""
    if requirements is None:
        return "not measured (no definition of a known type)"
    parts = [f"{requirements['containers']} container{'s' if requirements['containers'] != 1 else ''}"]
    for resource in ("memory", "cpu", "storage"):
        value = requirements[RESOURCES[resource]]
        open_ = any(entry.endswith(f": {resource}") for entry in requirements["unbounded"])
        if open_ and not value:
            parts.append(f"{resource} undeclared")
        elif value or resource != "storage":
            parts.append(f"{'at least ' if open_ else ''}{amount(resource, value)} {resource}")
    return ", ".join(parts)


def amount_of(key):
    """A table's column of the amounts at `key` of rows that name their `resource`."""
    return lambda row: amount(row["resource"], row[key])


def fit(result, err=False):
    """A fit's verdicts, resource by resource: what it requires, what the profile's instances use
    of the cap, what is left, and what would be left after it (the headroom)."""
    rows = [{"resource": name, **resource} for name, resource in result["resources"].items()]
    table(
        rows,
        {
            "RESOURCE": "resource",
            **{heading: amount_of(key) for heading, key in ROOM.items()},
            "HEADROOM": amount_of("headroom"),
            "VERDICT": "verdict",
        },
        err=err,
    )


def explained(result, profile, unresolved):
    """What a fit's verdicts mean, in words: which containers took the profile's default (and how
    much), which are over its maximum, what is unbounded and why, what waits for a variable."""
    limits = (profile or {}).get("limits") or {}
    for name, resource in result["resources"].items():
        if resource["defaulted"]:
            default = amount(name, (limits.get("containerDefaults") or {}).get(RESOURCES[name]))
            unit = " CPU" if name == "cpu" else ""
            count, each = len(resource["defaulted"]), f" ({default}{unit} each)" if default else ""
            click.echo(
                f"{name}: {count} declaring none took the profile's default{each}: {', '.join(resource['defaulted'])}."
            )
        if resource["overMax"]:
            click.echo(f"{name}: over the profile's per-container maximum: {'; '.join(resource['overMax'])}.")
        if resource["verdict"] == "unbounded":
            click.echo(
                f"{name}: unbounded: a container declares no {name} limit and the profile gives no default, "
                "so a capped profile cannot count it; declare one, or give the profile a container default."
            )
        if resource["verdict"] == "unknown" and unresolved:
            click.echo(f"{name}: unknown until {', '.join(unresolved)} {'is' if len(unresolved) == 1 else 'are'} set.")


def notes(found):
    """On standard error: what a render for Kubernetes did not carry over exactly, a line each."""
    for one in found:
        click.echo(f"note: {one['path']}: {one['outcome']}: {one['why']}", err=True)


def warn_unresolved(requirements):
    """On standard error: the variables a definition uses without a value here, which Compose will
    take from the environment it deploys in (and the amounts they stand in are not known)."""
    names = (requirements or {}).get("unresolved") or []
    if names:
        click.echo(
            f"warning: {', '.join(names)} {'has' if len(names) == 1 else 'have'} no value here: Docker Compose "
            "takes them from the environment it deploys in, and what they stand in is not measured.",
            err=True,
        )


def route(found):
    """`https://shop.example.com/api -> web:8080` (a host not known until rendered: `(any host)`)."""
    scheme = "https" if found["tls"] else "http"
    host = found["host"] or "(any host)"
    return f"{scheme}://{host}{'' if found['path'] == '/' else found['path']} -> {found['service']}:{found['port']}"
