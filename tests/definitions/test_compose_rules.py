"""Each rule Docker Compose applies when it loads a file, one case each: the service refuses what
Compose refuses, naming the place, and accepts and measures what Compose accepts; Compose itself
(support/compose_oracle.py) confirms every verdict."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app import definitions
from app.definitions import compose_load
from app.errors import Invalid
from support import compose_oracle as oracle


def judged(body):
    return "services:\n" + body if not body.startswith(("services:", "volumes:", "secrets:", "x-", "jobs:")) else body


REFUSED = {
    "scale beside other replicas": (
        "  web: {image: x, scale: 5, deploy: {replicas: 2}}",
        "services.web: can't set distinct values on 'scale' and 'deploy.replicas'",
    ),
    "mem_limit beside other limits": (
        "  web: {image: x, mem_limit: 1g, deploy: {resources: {limits: {memory: 2g}}}}",
        "services.web: can't set distinct values on 'mem_limit'",
    ),
    "cpus without its twin in limits": (
        "  web: {image: x, cpus: 1, deploy: {resources: {limits: {memory: 1g}}}}",
        "services.web: can't set distinct values on 'cpus'",
    ),
    "pids_limit beside other pids": (
        "  web: {image: x, pids_limit: 5, deploy: {resources: {limits: {pids: 6}}}}",
        "services.web: can't set distinct values on 'pids_limit'",
    ),
    "no image nor build": ("  web: {mem_limit: 1g}", "services.web: has neither an image nor a build"),
    "a host without an address": (
        '  web: {image: x, profiles: [later], extra_hosts: ["db"]}',
        "services.web.extra_hosts.0: invalid additional host, missing IP: 'db'",
    ),
    "undefined named volume": (
        '  web: {image: x, volumes: ["data:/data"]}',
        "services.web.volumes: refers to undefined volume 'data'",
    ),
    "undefined volume, long syntax": (
        "  web: {image: x, volumes: [{type: volume, source: d, target: /d}]}",
        "services.web.volumes: refers to undefined volume 'd'",
    ),
    "volume with too many colons": ('  web: {image: x, volumes: ["/a:/b:ro:x"]}', "services.web.volumes.0: "),
    "empty volume": ('  web: {image: x, volumes: [""]}', "services.web.volumes.0: an empty volume"),
    "volume over a tmpfs": (
        '  web: {image: x, tmpfs: [/d], volumes: ["./d:/d/"]}',
        "services.web.volumes.0: target '/d' is already mounted as services.web.tmpfs.0",
    ),
    "tmpfs path twice": ('  web: {image: x, tmpfs: ["/d", "/d:size=1m"]}', "services.web.tmpfs.1: target '/d'"),
    "undefined network": ("  web: {image: x, networks: [back]}", "services.web: refers to undefined network 'back'"),
    "undefined secret": ("  web: {image: x, secrets: [key]}", "services.web: refers to undefined secret 'key'"),
    "undefined build secret": (
        "  web: {build: {context: ., secrets: [key]}}",
        "services.web: refers to undefined secret 'key'",
    ),
    "undefined config": ("  web: {image: x, configs: [conf]}", "services.web: refers to undefined config 'conf'"),
    "undefined model": ("  web: {image: x, models: [llm]}", "services.web: refers to undefined model 'llm'"),
    "secret without a source": ("secrets: {key: {name: k}}\nservices:\n  web: {image: x}", "secrets.key: must"),
    "network_mode beside networks": (
        "  web: {image: x, network_mode: host, networks: [default]}",
        "services.web: declares mutually exclusive `network_mode` and `networks`",
    ),
    "dockerfile beside dockerfile_inline": (
        "  web: {build: {context: ., dockerfile: D, dockerfile_inline: FROM x}}",
        "services.web.build: declares mutually exclusive",
    ),
    "a build context from a service without a build": (
        "  web: {build: {context: ., additional_contexts: {base: 'service:db'}}}\n  db: {image: y}",
        "services.web.build.additional_contexts: 'db' is not a service with a build",
    ),
    "a build context from nothing": (
        "  web: {build: {context: ., additional_contexts: ['base=service:db']}}",
        "services.web.build.additional_contexts: 'db'",
    ),
    "a platform the build leaves out": (
        "  web: {platform: linux/arm64, build: {context: ., platforms: [linux/amd64]}}",
        "services.web.build.platforms: must include",
    ),
    "healthcheck test form": ("  web: {image: x, healthcheck: {test: [curl, x]}}", "services.web.healthcheck.test"),
    "dependency on nothing": (
        "  web: {image: x, depends_on: [db]}",
        "services.web.depends_on: depends on undefined service 'db'",
    ),
    "dependency on a service left out": (
        "  web: {image: x, depends_on: [db]}\n  db: {image: y, profiles: [x]}",
        "services.web.depends_on: depends on undefined service 'db'",
    ),
    "link to nothing": (
        "  web: {image: x, links: ['db:database']}",
        "services.web.depends_on: depends on undefined service 'db'",
    ),
    "namespace of nothing": ("  web: {image: x, network_mode: 'service:db'}", "services.web.depends_on: "),
    "volumes_from nothing": ("  web: {image: x, volumes_from: ['db:ro']}", "services.web.depends_on: "),
    "dependency cycle": (
        "  a: {image: x, depends_on: [b]}\n  b: {image: x, links: [a]}",
        "services: dependency cycle detected",
    ),
    "container_name with two containers": (
        "  web: {image: x, container_name: w, scale: 2}",
        "services.web: can't set container_name",
    ),
    "watch without a target": (
        "  web: {image: x, develop: {watch: [{path: ., action: sync}]}}",
        "services.web.develop.watch: a target is required",
    ),
    "text where Compose wants a number": (
        "  web: {image: x, ports: [{target: web}]}",
        "services.web.ports.0.target: Compose cannot read 'web' as a whole number",
    ),
    "text where Compose wants a boolean": (
        "  web: {image: x, privileged: maybe}",
        "services.web.privileged: Compose cannot read 'maybe' as true or false",
    ),
    "port without a target": ("  web: {image: x, ports: [{published: 80}]}", "services.web.ports.0: the port has no"),
    "a host port that is no port": (
        "  web: {image: x, ports: ['example:80']}",
        "services.web.ports.0: 'example:80': invalid hostPort",
    ),
    "a container port beyond 65535": ("  web: {image: x, ports: [70000]}", "services.web.ports.0: '70000': invalid"),
    "a port of an unknown protocol": (
        "  web: {image: x, ports: ['80/xyz']}",
        "services.web.ports.0: '80/xyz': invalid proto",
    ),
    "port ranges of different sizes": (
        "  web: {image: x, ports: ['8000-8010:80-82']}",
        "services.web.ports.0: '8000-8010:80-82': invalid ranges",
    ),
    "a port of no IP address": ("  web: {image: x, ports: ['1.2.3.999:80:80']}", "services.web.ports.0: "),
    "port 0 as the target": ("  web: {image: x, ports: ['80:0']}", "services.web.ports.0: '80:0': the port has no"),
    "extends a file": ("  web: {image: x, extends: {file: other.yml, service: base}}", "services.web.extends.file"),
    "extends nothing": ("  web: {image: x, extends: base}", "services.web.extends: no service 'base'"),
    "negative scale": ("  web: {image: x, scale: -1}", "services.web.scale: "),
    # YAML read as go-yaml v3 reads it (app/model/goyaml.py), found by tests/definitions/test_mutation_oracle.py
    "a port mapping written as a mapping": (
        "  web: {image: x, ports: {80: 80}}",
        "services.web.ports: the key 80 is not a string",
    ),
    "a service named by a number": ("  1: {image: x}", "services: the key 1 is not a string"),
    "a number as an environment key": (
        "  web: {image: x, environment: {1: one}}",
        "services.web.environment: the key 1 is not a string",
    ),
    "a boolean as a label key": ("  web: {image: x, labels: {true: x}}", "services.web.labels: the key true"),
    "a null as an environment key": ("  web: {image: x, environment: {null: x}}", "services.web.environment: the key"),
    "a number as an extra_hosts key": ("  web: {image: x, extra_hosts: {1: 1.2.3.4}}", "services.web.extra_hosts: "),
    "a date as a key": ("  web: {image: x, ulimits: {2020-01-01: 1}}", "services.web.ulimits: the key 2020-01-01"),
    "a number as a key in an extension": ("x-a: {1: 2}\nservices:\n  web: {image: x}", "x-a: the key 1"),
    "a date as a label": ("  web: {image: x, labels: {built: 2020-01-01}}", "services.web.labels.built: a date"),
    "a date as the grace period": (
        "  web: {image: x, stop_grace_period: 2020-01-01}",
        "services.web.stop_grace_period: a date",
    ),
    "a date and time as a placement constraint": (
        "  web: {image: x, deploy: {placement: {constraints: [2020-01-01T10:00:00Z]}}}",
        "services.web.deploy.placement",
    ),
    "a date as a volume's name": ("volumes: {d: {name: 2020-01-01}}\nservices:\n  web: {image: x}", "volumes.d.name"),
    "a float port": ("  web: {image: x, ports: [80.5]}", "services.web.ports.0: a port must be a whole number"),
    "a whole float port": ("  web: {image: x, ports: [80.0]}", "services.web.ports.0: a port must be"),
    "a number as the working_dir": ("  web: {image: x, working_dir: 1}", "services.web.working_dir: "),
    "a number as the restart policy": ("  web: {image: x, restart: 1}", "services.web.restart: "),
    "a number as the image": ("  web: {image: 1}", "services.web.image: "),
    "a number in a command": ("  web: {image: x, command: [1, true]}", "services.web.command"),
    "a number as a volume": ("  web: {image: x, volumes: [1]}", "services.web.volumes"),
    "a number in the environment list": ("  web: {image: x, environment: [1]}", "services.web.environment"),
    "a leading-zero octal in a command": ("  web: {image: x, command: [017]}", "services.web.command"),
    "an unknown unit in a grace period": (
        "  web: {image: x, stop_grace_period: 10x}",
        "services.web.stop_grace_period: ",
    ),
    "an unknown unit in an update delay": (
        "  web: {image: x, deploy: {update_config: {delay: 5x}}}",
        "services.web.deploy.update_config.delay: ",
    ),
    "negative healthcheck retries": (
        "  web: {image: x, healthcheck: {retries: -0.5}}",
        "services.web.healthcheck.retries: ",
    ),
    "negative restart attempts": (
        "  web: {image: x, deploy: {restart_policy: {max_attempts: -1}}}",
        "services.web.deploy.restart_policy.max_attempts: ",
    ),
    "a float storage option": ("  web: {image: x, storage_opt: {size: 0.5}}", "services.web.storage_opt.size: must be"),
    "a mapping as a storage option": ("  web: {image: x, storage_opt: {size: {a: 1}}}", "services.web.storage_opt"),
    "a float ulimit (Compose panics)": (
        "  web: {image: x, ulimits: {nofile: {soft: 1, hard: 1000.0}}}",
        "services.web.ulimits.nofile.hard: must be a whole number",
    ),
    "a bind mount without a source": (
        "  web: {image: x, volumes: [{type: bind, target: /a}]}",
        "services.web.volumes.0: a bind mount needs a source",
    ),
    "a dependency on an empty name": ("  web: {image: x, depends_on: ['']}", "services.web.depends_on: "),
    "what came after 2.40.3: jobs": ("jobs: {}\nservices:\n  web: {image: x}", "(the document): "),
    "what came after 2.40.3: umask": ("  web: {image: x, umask: 18}", "services.web: "),
}


@pytest.mark.parametrize("text, place", REFUSED.values(), ids=REFUSED.keys())
def test_what_docker_compose_refuses_is_refused_naming_its_place(text, place):
    with pytest.raises(Invalid) as info:
        definitions.requirements("compose", judged(text))
    assert any(message.startswith(place) for message in info.value.errors["yml"]), info.value.errors
    assert not oracle.config(judged(text))[0], "Compose accepts it"


MiB = 2**20
ACCEPTED = {
    "hosts with an empty address": ('  web: {image: x, extra_hosts: ["a=", "b:", "c=10.0.0.1"]}', (1, 0, 0)),
    "equal twins": (
        "  web: {image: x, scale: 2, mem_limit: 1g, cpus: 0.5,\n"
        "        deploy: {replicas: 2, resources: {limits: {memory: 1024m, cpus: '0.5'}}}}",
        (2, 2048 * MiB, 1000),
    ),
    "a profile leaves a service out": (
        "  web: {image: x, mem_limit: 1m}\n  debug: {image: y, mem_limit: 1g, profiles: [debug], depends_on: [web]}",
        (1, MiB, 0),
    ),
    "a left-out dependency that is not required": (
        "  web: {image: x, mem_limit: 1m, depends_on: {db: {condition: service_started, required: false}}}\n"
        "  db: {image: y, profiles: [db]}",
        (1, MiB, 0),
    ),
    "extends within the file": (
        "  base: {image: x, mem_limit: 1m, deploy: {replicas: 2}}\n  web: {extends: base, cpus: 1}",
        (4, 4 * MiB, 2000),
    ),
    "a one-letter source is a Windows drive": (
        '  web: {image: x, volumes: ["c:/data", "./d:/d", "~/e:/e", "anon"]}',
        (1, 0, 0),
    ),
    "a declared named volume": (
        'volumes: {data: {}}\nservices:\n  web: {image: x, volumes: ["data:/data:ro"]}',
        (1, 0, 0),
    ),
    "entries listed twice are kept once": (
        '  web: {image: x, ports: ["80", "80"], dns: [a, a], tmpfs: [/t, /t], environment: [A=1, A=2]}',
        (1, 0, 0),
    ),
    "a volume given twice at one path": ('  web: {image: x, volumes: ["./a:/d", "./b:/d"]}', (1, 0, 0)),
    "text cast as Compose casts it": (
        '  web: {image: x, privileged: "yes", init: "off", pids_limit: "10",'
        ' ports: [{target: "80"}], ulimits: {nofile: "5"}}',
        (1, 0, 0),
    ),
    "a dependency on a service that runs": (
        "  web: {image: x, links: [db], volumes_from: ['db:ro'], ipc: 'service:db'}\n  db: {image: y}",
        (2, 0, 0),
    ),
    # YAML read as go-yaml v3 reads it, found by tests/definitions/test_mutation_oracle.py
    "yes, on and 1:20 are text": (
        "  web: {image: x, labels: {yes: a, on: b}, command: [yes, '1', 1:20], ports: [22:22], privileged: yes}",
        (1, 0, 0),
    ),
    "a date in an extension": ("x-built: 2020-01-01\nservices:\n  web: {image: x, x-at: 2020-01-01}", (1, 0, 0)),
    "0o17 is a number": ("  web: {image: x, deploy: {replicas: 0o3}, mem_limit: 017}", (3, 3 * 15, 0)),
    "a float memory limit means none": (
        "  web: {image: x, mem_limit: 0.5, shm_size: -0.5, memswap_limit: 1.5}",
        (1, 0, 0),
    ),
    "an empty build is a build": ("  web: {build: {}}\n  db: {build: ''}", (2, 0, 0)),
    "a bind mount with an empty source": (
        "  web: {image: x, volumes: [{type: bind, source: '', target: /a}]}",
        (1, 0, 0),
    ),
    "a whole number as a storage option": ("  web: {image: x, storage_opt: {size: 10, other: null}}", (1, 0, 0)),
    "pull_policy matched anywhere, as 2.40.3 does": ("  web: {image: x, pull_policy: xalwaysx}", (1, 0, 0)),
    "a secret whose file is empty (the project's folder)": (
        "secrets: {s: {file: ''}}\nservices:\n  web: {image: x}",
        (1, 0, 0),
    ),
    "a float retry count is truncated": ("  web: {image: x, healthcheck: {retries: 1.5}}", (1, 0, 0)),
}


@pytest.mark.parametrize("text, needs", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_what_docker_compose_accepts_is_accepted_and_measured_as_it_starts_it(text, needs):
    found = definitions.requirements("compose", judged(text))
    assert (found["containers"], found["memoryBytes"], found["cpuMillis"]) == needs
    assert oracle.config(judged(text))[0], "Compose refuses it"


def test_a_failed_branch_of_the_schema_does_not_report_the_service_s_valid_fields_as_unexpected():
    """jsonschema reports every property of a service whose schema branch failed elsewhere as
    unevaluated; only the ones the schema does not declare are named."""
    with pytest.raises(Invalid) as info:
        definitions.requirements("compose", judged("  web: {imag: x, image: x, ulimits: {nofile: {soft: 1}}}"))
    unexpected = [message for message in info.value.errors["yml"] if "unexpected" in message]
    assert unexpected == ["services.web: Unevaluated properties are not allowed ('imag' was unexpected)"]


@pytest.mark.parametrize("link", ["depends_on: [s{}]", "extends: s{}"])
def test_a_chain_of_thousands_of_services_is_followed_without_recursion(link):
    """A 1 MiB body holds tens of thousands of services; a chain of them is walked, not recursed."""
    chain = "".join(f"  s{i}: {{image: x, mem_limit: 1k, {link.format(i - 1)}}}\n" for i in range(1, 5000))
    assert (
        definitions.requirements("compose", f"services:\n  s0: {{image: x, mem_limit: 1k}}\n{chain}")["memoryBytes"]
        == 5000 * 1024
    )
    looped = f"services:\n  s0: {{image: x, {link.format(4999)}}}\n{chain}"
    with pytest.raises(Invalid) as info:
        definitions.requirements("compose", looped)
    assert any("cycle" in message for message in info.value.errors["yml"])


def test_extends_merges_dependencies_and_networks_as_mappings_as_compose_does():
    """A name in both lists is one entry (the schema's uniqueItems would refuse two); a mapping
    and a list merge."""
    text = (
        "services:\n  a: {image: x, depends_on: {b: {condition: service_healthy}}, networks: [n]}\n"
        "  b: {image: x}\n  c: {extends: a, depends_on: [b], networks: {n: {}}}\n"
        "  d: {extends: a, depends_on: [b], networks: [n]}\nnetworks: {n: {}}\n"
    )
    assert definitions.requirements("compose", text)["containers"] == 4
    assert oracle.config(text)[0]


def test_a_long_volume_spec_is_parsed_but_not_remembered():
    """Volume specs are cached by their text; a long one would pin up to a body's size per entry."""
    from app.definitions import compose_load

    long_one = "./" + "a" * compose_load.MAX_CACHED_SPEC + ":/data"
    compose_load._parse_volume_cached.cache_clear()
    assert compose_load.parse_volume(long_one) == ("bind", long_one[:-6], "/data")
    assert compose_load._parse_volume_cached.cache_info().currsize == 0
    assert compose_load.parse_volume("./short:/data") == ("bind", "./short", "/data")
    assert compose_load._parse_volume_cached.cache_info().currsize == 1


def _port(read, spec):
    try:
        return read(spec)
    except compose_load.LoadError as exc:
        return str(exc)


PORT = st.sampled_from(["0", "1", "080", "65535", "65536", "99999", "100000"]) | st.integers(0, 70000).map(str)
PORTS = st.builds(
    lambda host, port, protocol: (host + ":" if host else "") + port + protocol,
    st.none() | PORT,
    PORT,
    st.sampled_from(["", "/tcp", "/udp", "/xyz"]),
)
ODD_PORTS = st.from_regex(r"(([0-9]{1,6}|\[::1\]|1\.2\.3\.4):){0,2}[0-9]{0,6}(-[0-9]{1,5})?(/tcp)?", fullmatch=True)


@settings(max_examples=500)
@given(PORTS | ODD_PORTS)
def test_ports_read_by_the_plain_pattern_as_by_docker(spec):
    """`8080:80` and its kind take a shortcut; it must accept and refuse as ParsePortSpec's reading."""
    assert _port(compose_load.port_spec, spec) == _port(compose_load._port_of_text, spec)


def test_a_count_beyond_64_bits_names_its_place_once():
    with pytest.raises(Invalid) as info:
        definitions.requirements("compose", "services:\n  web: {image: x, deploy: {replicas: 99999999999999999999}}")
    assert info.value.errors["yml"] == ["services.web.deploy.replicas: the count is larger than a 64-bit integer."]
