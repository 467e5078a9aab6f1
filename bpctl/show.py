"""What bpctl shows: tables for people, JSON for scripts, amounts in the units people read."""

import json

import click


def as_json(data):
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def table(rows, columns, err=False):
    """`rows` (dicts) as aligned columns; `columns` maps each heading to a key or a function."""
    cells = [[_cell(column(row) if callable(column) else row.get(column)) for column in columns.values()]
             for row in rows]  # fmt: skip
    widths = [max([len(heading)] + [len(line[i]) for line in cells]) for i, heading in enumerate(columns)]
    for line in [list(columns), *cells]:
        click.echo("  ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip(), err=err)


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
    if resource == "cpu":
        return f"{value / 1000:g}" if value % 1000 == 0 else f"{value}m"
    return str(value)


def fit(result, err=False):
    """A fit's verdicts, resource by resource."""
    rows = [{"resource": name, **resource} for name, resource in result["resources"].items()]
    table(
        rows,
        {
            "RESOURCE": "resource",
            "REQUIRED": lambda row: amount(row["resource"], row["required"]),
            "CAP": lambda row: amount(row["resource"], row["cap"]),
            "HEADROOM": lambda row: amount(row["resource"], row["headroom"]),
            "VERDICT": "verdict",
        },
        err=err,
    )
