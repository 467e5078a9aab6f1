"""A render: a version of a blueprint filled in with a caller's values, checked and measured as
its format requires, fitted to a profile (whose container defaults are then written in), and
(`maximize`) the most an integer parameter can be while the rendering still fits.

The most that fits is found by bisection, which assumes that a larger value never needs less
(replicas, workers, shards); the answer always fits, having been rendered and fitted. A render
costs at most RENDERS renders: the one asked for, then the top of the range, the bottom, and a
bisection of at most RENDERS - 3 steps (2**61 candidates; a wider range is cut from below).
"""

import math
import re
import time
from dataclasses import replace

from app import definitions
from app.definitions import (
    compose,
    defaults,
    domains,
    fit,
    kubernetes,
    on_kubernetes,
    parameters,
    proxy,
    routes,
    templates,
    tenancy,
    totals,
)
from app.definitions.on_kubernetes import budget, isolation
from app.definitions.on_kubernetes.model import Cluster
from app.definitions.on_kubernetes.names import label
from app.definitions.on_kubernetes.notes import Notes
from app.definitions.placeholders import MissingValue
from app.errors import Invalid
from app.model import quantities, yamlguard

RENDERS = 64
MOST = 1_000_000  # the top of an integer parameter's range when it sets no maximum


def render(
    version, given, limits=None, maximize=None, seconds=10.0, usage=None, cluster=None, secrets=(), project=None
):
    """The body of a render of `version` (a blueprint as stored) with the values `given`, fitted
    to a profile's `limits` (None: no profile) in the room its `usage` leaves; `maximize` searches
    for `seconds` at most; with a `Cluster` (`cluster_of`), a Compose blueprint converted for it.
    `used` (not shown) holds every value used, generated ones included, which an instance keeps;
    `secrets` names parameters that
    stay secret whatever the schema says now (an instance's). A Compose render writes its routes
    as Traefik labels, its routers named after `project` (an instance's name; default the
    blueprint's); for a cluster, what routes is named after the cluster's instance. Domain
    parameters left empty take the profile's domain (app/definitions/domains.py)."""
    declared = version.get("parameters") or {}
    domain = (limits or {}).get("cluster", {}).get("domain")
    template = templates.read(version["yml"], definitions.dialect_of(version.get("blueprintType")))
    project = cluster.instance if cluster is not None else label(project or version.get("name") or "app")
    given = domains.filled(declared, given, template.services, project, domain)
    used = parameters.values(declared, given)
    secret = parameters.secret_names(declared) | set(secrets)
    try:
        text, documents, requirements = _rendered(template, version, used)
    except Invalid as exc:
        raise Invalid(_without_values(exc.errors, secret, used)) from None
    fmt = definitions.format_of(version.get("blueprintType"))
    headroom = budget.headroom_of((limits or {}).get("cluster", {})) if fmt is kubernetes else None
    requirements = budget.with_headroom(requirements, headroom)
    fitted = None if limits is None else fit.fit(requirements, limits, usage)
    if fitted is not None:
        text, requirements = _defaults_written(text, fmt, requirements, limits, converted=cluster is not None)
        requirements = budget.with_headroom(requirements, headroom)  # measured again where anchors share
    answer = dict(yml=text, values=parameters.shown(secret, used), requirements=requirements, fit=fitted, used=used)
    if fmt is kubernetes:
        requirements["routes"] = routes.hosted(requirements["routes"], None, domain)
    if fmt is compose:
        requirements["routes"] = routes.hosted(requirements["routes"], project, domain)
        if cluster is None:
            conventions = proxy.conventions((limits or {}).get("cluster"))
            answer["yml"] = routes.labelled(text, requirements["routes"], project, conventions)
            if (conventions or {}).get("publish") is False:  # the host ports the engine binds, read again
                requirements["published"] = definitions.measure(compose, answer["yml"])["published"]
        else:
            answer.update(_on_kubernetes(documents[0], answer, secret, cluster, limits, usage))
    _note_unset(answer, declared, given)
    if maximize is not None:
        deadline = time.monotonic() + seconds
        answer["maximized"] = {maximize: _most(template, version, declared, used, maximize, (limits, usage), deadline)}
    return answer


def _defaults_written(text, fmt, requirements, limits, converted=False):
    """(text, requirements) with the profile's container defaults written into each container
    that declares none, as the fit counted them (read again where an anchor may share a node
    among containers). A Compose file `converted` for a cluster is not written: the conversion
    writes the limits its requirements count, and the text is not answered."""
    amounts = fit.defaulted(requirements, limits)
    if not amounts:
        return text, requirements
    if converted and "&" not in text:
        return text, totals.declared(requirements, amounts)
    text = defaults.write(text, fmt is compose, requirements, amounts)
    return text, totals.declared(requirements, amounts) if "&" not in text else definitions.measure(fmt, text)


def _note_unset(answer, declared, given):
    """A note for each declared parameter left empty: Compose reads a variable left unset so."""
    unset = [name for name in declared.get("properties", {}) if _left_empty(declared, name, given)]
    for name in unset:
        answer.setdefault("notes", Notes()).approximated(
            ["values", name], "not given: empty, as Compose reads a variable left unset"
        )


def _left_empty(declared, name, given):
    """Whether a parameter that a platform leaves optional (default "") takes its empty default."""
    return declared["properties"][name].get("default") == "" and given.get(name) in (None, "")


def _rendered(template, version, values):
    """The rendered text, its documents as its format reads them and their requirements (None
    and None for a type of no known format)."""
    fmt = definitions.format_of(version.get("blueprintType"))
    try:
        text = template.fill(values)
    except MissingValue as exc:
        raise Invalid({f"values.{exc.name}": [str(exc)]}) from None
    if fmt is None:
        return text, None, None
    documents = definitions.read(fmt, text)
    return text, documents, definitions.measure_documents(fmt, documents)


def own_target(blueprint_type):
    """The target a blueprint renders for by default: its own format's (None: no known format)."""
    fmt = definitions.format_of(blueprint_type)
    return "compose" if fmt is compose else "kubernetes" if fmt is kubernetes else None


def cluster_of(blueprint_type, args, instance, **settings):
    """The `Cluster` a render that `args` ask for (`target`, `namespace`, `volumeSize`,
    `volumeSizes`, `routes`; else Cluster's defaults) writes for, its objects labelled
    `instance`, with the Cluster fields `settings` (the operator's, an instance's): None for the
    blueprint's own format; a 422 naming `target` for a conversion there is none of."""
    target = args.get("target")
    if target is None or target == own_target(blueprint_type):
        return None
    if definitions.format_of(blueprint_type) is not compose:
        raise Invalid({"target": ["Only a Compose blueprint renders for another target than its own format."]})
    fields = (("volumeSize", "volume_size"), ("volumeSizes", "volume_sizes"), ("routes", "routes"))
    asked = {"namespace": args.get("namespace"), **{field: args[key] for key, field in fields if key in args}}
    return Cluster(instance, **{**asked, **settings})


def _on_kubernetes(document, answer, secret, cluster, limits, usage):
    """The Kubernetes stream of a rendered Compose file (its `document`, as read before a
    profile's defaults were written in: a container's limits are the ones its requirements
    count), measured by Kubernetes' rules (every object checked strictly) and fitted: memory, CPU
    and containers as the Compose render counted them (its `defaulted` kept), storage with the
    claims, pod security as the conversion runs the services; and the notes."""
    texts = [templates.as_text(answer["used"][name]) for name in sorted(secret & set(answer["used"]))]
    values = {name: templates.as_text(value) for name, value in answer["used"].items()}
    level = (limits or {}).get("podSecurity")
    conventions = (limits or {}).get("cluster", {})
    cluster = replace(
        cluster,
        values=values,
        secret_texts=tuple(text for text in texts if text),
        pod_security=level,
        conventions=conventions,
        ingress_namespaces=ingress_namespaces(cluster.ingress_namespaces, conventions),
        wait_limits=_wait_limits(cluster.wait_limits, (limits or {}).get("containerDefaults") or {}),
    )
    objects, notes = on_kubernetes.convert(document, answer["requirements"], cluster)
    security = {"kubernetes": answer["requirements"]["podSecurity"]["kubernetes"]}
    requirements = definitions.measure_documents(kubernetes, yamlguard.Documents(objects, built=True), security)
    requirements = budget.with_headroom(requirements, budget.headroom_of(conventions))
    held_by = (cluster.namespace, cluster.team)
    holding = namespace_objects(held_by, requirements, limits) if cluster.holds_namespace else []
    yml = _within_bounds(on_kubernetes.written(holding + objects))
    fitted = None if limits is None else fit.fit(requirements, limits, usage)
    if fitted is not None:
        for resource, counted in answer["fit"]["resources"].items():
            fitted["resources"][resource]["defaulted"] = counted["defaulted"]
    return {"yml": yml, "requirements": requirements, "fit": fitted, "notes": notes}


def in_namespace(answer, namespace, allow_kinds, limits, ingress=()):
    """The stream of an instance of a Kubernetes blueprint (its render, `answer`) in the namespace
    it holds (`namespace`: its name, and the team that owns the instance or None, which labels
    it): its objects moved into it (`tenancy.hold`: what an instance may hold there, `allow_kinds`
    beyond those measured) and admitting only its own namespace's pods and the `ingress`
    controller's, after what holds it there (`namespace_objects`). A Compose blueprint's instance
    is converted with `Cluster.holds_namespace`, its stream written once."""
    documents = templates.load(answer["yml"], kubernetes.DIALECT)
    gateway = limits.get("cluster", {}).get("gateway")
    objects = tenancy.hold(documents, namespace[0], allow_kinds, Notes(), gateway)
    holding = namespace_objects(namespace, answer["requirements"], limits)
    holding.append(isolation.namespace_policy(namespace[0], ingress_namespaces(ingress, limits.get("cluster", {}))))
    return _within_bounds(on_kubernetes.written(holding + objects))


def namespace_objects(namespace, requirements, limits):
    """The Namespace, quota and LimitRange that hold an instance in `namespace` (its name, and the
    team that owns it or None) to its `requirements` under its profile's `limits`; checked as the
    rest of its stream is."""
    objects = tenancy.namespace_objects(namespace[0], requirements, limits, namespace[1])
    definitions.measure_documents(kubernetes, yamlguard.Documents(objects, built=True))
    return objects


def storage_on(cluster, requirements):
    """A Compose blueprint's `requirements` with its storage as a render for `cluster` counts it,
    without rendering: the claims its named volumes become, each of its size, where Compose
    counts `storage_opt` (which a pod's claims do not carry)."""
    if requirements is None:
        return None
    sizes = [cluster.volume_sizes.get(key, cluster.volume_size) for key in requirements.get("claims", ())]
    unknown = [resource for resource in requirements["unknownResources"] if resource != "storage"]
    storage = sum(quantities.kubernetes_bytes(size) for size in sizes)
    return {**requirements, "storageBytes": storage, "unknownResources": unknown}


def _wait_limits(given, profile_defaults):
    """A wait container's limits: the profile's container defaults where it has them."""
    amounts = {"memory": profile_defaults.get("memoryBytes"), "cpu": profile_defaults.get("cpuMillis")}
    return {
        resource: defaults.KUBERNETES[resource][1](amounts[resource]) if amounts[resource] else given[resource]
        for resource in given
    }


def ingress_namespaces(given, conventions):
    """The namespaces whose pods may reach an instance's routed services: the ingress
    controller's (`given`) and the profile's Gateway's."""
    gateway = conventions.get("gateway")
    return tuple(dict.fromkeys([*given, *([gateway.partition("/")[0]] if gateway else [])]))


def _within_bounds(yml):
    """A stream written for a cluster, held to the size of a Compose render (a 422 past it)."""
    if len(yml.encode()) > templates.MAX_RENDERED:
        raise Invalid({"target": [f"Written for a cluster, it is larger than {templates.MAX_RENDERED // 1024} KiB."]})
    return yml


def _without_values(errors, secret, used):
    """The problems of a rendering without the values given in them (a message may quote what it
    refuses): a message that holds any part of a secret value (5 characters of it; the whole of a
    shorter one where it is quoted or given) is left with its place only; any other value of 4 characters or more
    is written <NAME>."""
    leaks = [re.compile(pattern) for pattern in _secret_patterns(secret, used)]
    plain = sorted(
        (
            (text, name)
            for name, value in used.items()
            if name not in secret and len(text := templates.as_text(value)) >= 4
        ),
        key=lambda pair: -len(pair[0]),
    )
    written = {}
    for key, messages in errors.items():
        kept = []
        for message in messages:
            if any(leak.search(message) for leak in leaks):
                message = f"{message.partition(': ')[0]}: refused; the message would quote a secret value."
            for text, name in plain:
                message = message.replace(text, f"<{name}>")
            kept.append(message)
        written[key] = kept
    return written


def _secret_patterns(secret, used):
    """Patterns that find any part of a secret value a message could quote (messages cut what they
    quote, so a prefix is as telling as the whole)."""
    for name in secret & set(used):
        text = templates.as_text(used[name])
        if len(text) < 5:
            if text:
                yield rf"['\"=:] ?{re.escape(text)}(?!\w)"  # quoted or given, not a word of the message
            continue
        yield "|".join(re.escape(text[at : at + 5]) for at in range(len(text) - 4))


def _candidates(schema):
    """The integers the parameter admits, in order (a range, or its enum)."""
    if "const" in schema or "enum" in schema:
        allowed = [schema["const"]] if "const" in schema else schema["enum"]
        return sorted(int(value) for value in allowed if not isinstance(value, bool))
    lows, highs = [], []  # the integers at or above each lower bound, at or below each upper one
    if "minimum" in schema:
        lows.append(math.ceil(schema["minimum"]))
    if "exclusiveMinimum" in schema:
        lows.append(math.floor(schema["exclusiveMinimum"]) + 1)
    if "maximum" in schema:
        highs.append(math.floor(schema["maximum"]))
    if "exclusiveMaximum" in schema:
        highs.append(math.ceil(schema["exclusiveMaximum"]) - 1)
    low, high = max(lows, default=0), min(highs, default=MOST)
    step = schema.get("multipleOf", 1)
    step = step if isinstance(step, int) else 1
    first, last = -(-low // step), high // step  # the multiples of `step` within the bounds
    first = max(first, last - 2 ** (RENDERS - 3) + 1)
    return range(first * step, last * step + 1, step) if first <= last else range(0)


def _most(template, version, declared, used, name, profile, deadline):
    schema = declared.get("properties", {}).get(name)
    if schema is None or schema["type"] != "integer":
        raise Invalid({"maximize": ["Must name an integer parameter of this blueprint."]})
    candidates = _candidates(schema)

    def fits(index):
        if time.monotonic() >= deadline:
            raise Invalid({"maximize": [f"The search took too long; give {name} a narrower range (minimum, maximum)."]})
        try:
            requirements = _rendered(template, version, {**used, name: candidates[index]})[2]
        except Invalid:  # the format refuses that value (a negative count): it does not fit
            return False
        return fit.fits(requirements, *profile)

    top = len(candidates) - 1
    if top < 0 or not fits(0):
        return None
    if fits(top):
        return candidates[top]
    low, high = 0, top  # fits(low), not fits(high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return candidates[low]
