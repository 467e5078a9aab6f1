"""What a render or a deploy asks for: its values from `-f values.yaml` files (later files win) and
`--set NAME=VALUE` (over the files, the last one winning), typed by the template's own parameters
(`--set REPLICAS=3` is the integer 3 for an integer parameter and the text "3" for a string one);
its target and the sizes of its claims."""

import math
import re

import click
import yaml

INTEGER = re.compile(r"[+-]?\d+")


def gather(files, settings, properties):
    values = {}
    for file in files:
        values.update(_from_file(file, properties))
    for setting in settings:
        name, equals, text = setting.partition("=")
        if not equals or not name:
            raise click.BadParameter(f"{setting!r} is not NAME=VALUE.", param_hint="--set")
        values[name] = typed(text, properties.get(name, {}).get("type"))
    return values


def typed(text, kind):
    """`text` as the JSON value a parameter of type `kind` takes; the text itself when it does not
    read as one (the service then refuses it, naming the parameter)."""
    if kind == "integer" and INTEGER.fullmatch(text.strip()):
        return int(text)
    if kind == "number":
        if INTEGER.fullmatch(text.strip()):
            return int(text)
        try:
            number = float(text)
        except ValueError:
            return text
        return number if math.isfinite(number) else text
    if kind == "boolean" and text.strip().lower() in ("true", "false"):
        return text.strip().lower() == "true"
    return text


def _from_file(file, properties):
    """A values file: a YAML mapping of names to values. A string parameter takes a plain scalar's
    text as written (`TAG: 1.10` is "1.10", not the number 1.1)."""
    text = file.read()
    try:
        loaded = yaml.safe_load(text)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise click.BadParameter(f"{getattr(file, 'name', '-')} is not YAML: {exc}", param_hint="-f") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict) or not all(isinstance(name, str) for name in loaded):
        message = f"{getattr(file, 'name', '-')} is not a mapping of parameter names to values."
        raise click.BadParameter(message, param_hint="-f")
    written = {key.value: node.value for key, node in root.value if isinstance(node, yaml.ScalarNode)}
    for name, value in loaded.items():
        if properties.get(name, {}).get("type") == "string" and value is not None and name in written:
            loaded[name] = written[name]
    return loaded


def target(chosen, volume_sizes, **options):
    """The body's members that ask for a target: `target`, `volumeSize` (SIZE) and `volumeSizes`
    (VOLUME=SIZE), and any other option given (a `namespace`)."""
    if volume_sizes and chosen != "kubernetes":
        raise click.BadParameter("needs --target kubernetes", param_hint="--volume-size")
    if options.get("namespace") is not None and chosen != "kubernetes":
        raise click.BadParameter("needs --target kubernetes", param_hint="--namespace")
    body = {"target": chosen} if chosen else {}
    for given in volume_sizes:
        volume, equals, size = given.rpartition("=")
        if equals:
            body.setdefault("volumeSizes", {})[volume] = size
        else:
            body["volumeSize"] = size
    body.update({key: value for key, value in options.items() if value is not None})
    return body
