"""Compose blueprints rendered for Kubernetes, judged by the real tools: every corpus Compose file
converts (a 422 only for a service with `build` and no `image`, or an image its variables leave
empty, which it converts with them declared), every object strictly valid by
Kubernetes' schemas (the render measures its own stream) and decoded by kubectl, memory, CPU and
containers equal to the Compose render's, and each service faithful to the project Docker Compose
would start (image, replicas, environment, ports, mounts); secrets never plain in a workload;
every field not carried over named."""

import subprocess

import pytest
import yaml

from app import definitions
from app.definitions import pod_security, render
from app.definitions.on_kubernetes.model import Cluster
from app.errors import Invalid
from app.model import quantities
from support import compose_oracle as oracle
from support import corpus
from support.on_kubernetes import (
    COUNTED,
    LIMITS,
    PLAIN,
    converted,
    converted_as_run,
    kinds,
    taken_by_kubernetes,
    unfaithful,
)


@pytest.mark.slow
@pytest.mark.parametrize("name", corpus.names("compose"))
def test_every_corpus_compose_file_converts_valid_and_faithful_to_what_compose_starts(name):
    text = corpus.text(f"compose/{name}")
    try:
        compose_render, answer, objects, parameters = converted_as_run(text)
    except Invalid as exc:  # the one refusal the contract allows
        assert "build" in str(exc.errors["target"]) and "no `image`" in str(exc.errors["target"]), exc.errors
        return
    assert {key: answer["requirements"][key] for key in COUNTED} == {
        key: compose_render["requirements"][key] for key in COUNTED
    }
    claims = kinds(objects, "PersistentVolumeClaim")
    assert answer["requirements"]["storageBytes"] == len(claims) * 2**30  # a container's storage_opt is a note
    assert render.storage_on(PLAIN, compose_render["requirements"])["storageBytes"] == len(claims) * 2**30  # a fit's
    if compose_render["requirements"]["storageBytes"]:
        assert any(note["path"].endswith(".storage_opt") for note in answer["notes"])
    assert taken_by_kubernetes(answer["yml"])
    read = definitions.measure(definitions.format_of("kubernetes"), answer["yml"])
    assert {**read, "podSecurity": None} == {**answer["requirements"], "podSecurity": None}  # as read
    refused_alike(text, parameters)
    accepted, project = oracle.config(compose_render["yml"], oracle.values_for(text), oracle.env_files(text))
    assert accepted, project
    assert unfaithful(project, yaml.safe_load(compose_render["yml"])["services"], answer["yml"]) == []
    held_with_headroom(text, answer["requirements"], parameters)


def refused_alike(text, parameters):
    """For a profile at each level, the stream breaks the level exactly where the render's fit says
    it does: the fit reads the Compose file's findings as the conversion runs its services."""
    version = {"yml": text, "blueprintType": "compose", "parameters": parameters, "_id": "shop"}
    for level in ("baseline", "restricted"):
        answer = render.render(version, {}, {**LIMITS, "podSecurity": level}, cluster=Cluster("shop"))
        read = definitions.measure(definitions.format_of("kubernetes"), answer["yml"])["podSecurity"]["kubernetes"]
        assert bool(pod_security.violations(read, level)) == bool(answer["fit"]["podSecurity"]["violations"]), level


HEADROOM = {"pods": 2, "memory": "128Mi", "cpu": "100m"}
ROOMY = {**LIMITS, "cluster": {"headroom": HEADROOM}}


def held_with_headroom(text, requirements, parameters):
    """An instance of `text` in a namespace of its own under a profile with a headroom: its
    requirements and quota are what it runs and the headroom, its pods counted, the stream strict."""
    version = {"yml": text, "blueprintType": "compose", "parameters": parameters, "_id": "shop"}
    answer = render.render(version, {}, ROOMY, cluster=Cluster("shop", "shop", holds_namespace=True))
    counted = answer["requirements"]
    assert counted["memoryBytes"] == requirements["memoryBytes"] + 128 * 2**20
    assert counted["cpuMillis"] == requirements["cpuMillis"] + 100
    assert counted["containers"] == requirements["containers"] + 2
    assert definitions.measure(definitions.format_of("kubernetes"), answer["yml"])  # strictly valid, as read
    found = [one for one in yaml.safe_load_all(answer["yml"]) if one]
    quota = kinds(found, "ResourceQuota")["shop"]["spec"]["hard"]
    assert quantities.kubernetes_bytes(quota["limits.memory"]) == counted["memoryBytes"]
    assert quantities.kubernetes_millis(quota["limits.cpu"]) == counted["cpuMillis"]
    pods = sum(workload_pods(one) for one in found)
    assert int(quota["pods"]) == pods + 2


def workload_pods(manifest):
    """The pods a converted workload runs, as Kubernetes reads its kind: replicas, a Job's
    parallelism, a CronJob's one run at a time; 0 for what runs nothing."""
    spec = manifest.get("spec") or {}
    if manifest["kind"] in ("Deployment", "StatefulSet"):
        return spec.get("replicas", 1)
    if manifest["kind"] == "Job":
        return spec.get("parallelism", 1)
    return 1 if manifest["kind"] in ("CronJob", "Pod") else 0


SHOP = """services:
  web:
    image: nginx:${TAG}
    command: ["nginx", "-g", "daemon off; # $$(not expanded)"]
    environment:
      DB_PASSWORD: ${DB_PASSWORD}
      DB_URL: postgres://shop:${DB_PASSWORD}@db/shop
      PLAIN: "$$(echo hi)"
    ports:
      - "8080:80"
    depends_on:
      migrate:
        condition: service_completed_successfully
    volumes:
      - ./site:/usr/share/nginx/html:ro
      - cache:/var/cache/nginx
    healthcheck:
      test: ["CMD-SHELL", "curl -f http://localhost/ || exit 1"]
      interval: 1m30s
      timeout: 500ms
    ulimits:
      nofile: 1024
  db:
    image: postgres:17
    user: "999:999"
    command: postgres -c password=${DB_PASSWORD}
    volumes:
      - data:/var/lib/postgresql/data
    deploy:
      resources:
        limits: {memory: 512m, cpus: "0.5"}
        reservations: {memory: 256m}
  migrate:
    image: shop/migrate
    restart: "no"
    depends_on: [cache]
  cache:
    image: redis:7
    volumes:
      - type: tmpfs
        target: /data
        tmpfs: {size: 64m}
      - type: bind
        source: ./conf
        target: /conf
        bind: {propagation: rprivate}
  debug:
    image: busybox
    profiles: [debug]
volumes:
  data:
  cache:
    driver: local
"""
SHOP_PARAMETERS = {
    "type": "object",
    "properties": {
        "TAG": {"type": "string", "default": "1.27"},
        "DB_PASSWORD": {"type": "string", "writeOnly": True, "x-generate": "[A-Za-z0-9]{24}"},
    },
}


def test_a_template_converts_with_its_secrets_in_the_secret_and_every_loss_named():
    compose_render, answer, objects = converted(
        SHOP, parameters=SHOP_PARAMETERS, namespace="team", volume_sizes={"data": "20Gi"}
    )
    answer_password = answer["used"]["DB_PASSWORD"]
    assert [one["kind"] for one in objects] == [
        "Secret",
        "PersistentVolumeClaim",
        "PersistentVolumeClaim",
        "Service",
        "Service",
        "Service",
        "Service",
        "Deployment",
        "Deployment",
        "Job",
        "Deployment",
        "NetworkPolicy",  # one: every service is on the default network
    ]
    assert all(one["metadata"]["namespace"] == "team" for one in objects)
    workloads = [one for one in objects if one["kind"] in ("Deployment", "Job")]
    assert answer_password not in yaml.safe_dump_all(workloads)  # only the Secret holds it
    (secret,) = kinds(objects, "Secret").values()
    assert secret["stringData"]["web.DB_PASSWORD"] == answer_password
    assert secret["stringData"]["web.DB_URL"] == f"postgres://shop:{answer_password}@db/shop"
    web = kinds(objects, "Deployment")["web"]["spec"]
    (container,) = web["template"]["spec"]["containers"]
    env = {one["name"]: one for one in container["env"]}
    assert env["DB_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "shop", "key": "web.DB_PASSWORD"}
    assert env["PLAIN"] == {"name": "PLAIN", "value": "$$(echo hi)"}  # Compose's $$ is $; Kubernetes' $$( is $(
    assert container["args"] == ["nginx", "-g", "daemon off; # $$(not expanded)"]
    assert container["image"] == "nginx:1.27" and container["ports"] == [
        {"name": "tcp-80", "containerPort": 80, "protocol": "TCP"}
    ]
    assert container["resources"] == {"limits": {"memory": "256Mi", "cpu": "250m"}}  # the profile's defaults
    assert container["readinessProbe"] == {
        "exec": {"command": ["/bin/sh", "-c", "curl -f http://localhost/ || exit 1"]},
        "periodSeconds": 90,
        "timeoutSeconds": 1,
        "failureThreshold": 3,
    }
    assert web["strategy"] == {"type": "Recreate"}  # it mounts a claim
    db = kinds(objects, "Deployment")["db"]["spec"]["template"]["spec"]["containers"][0]
    assert db["args"] == ["postgres", "-c", "password=$(BLUEPRINT_SECRET_0)"]
    assert db["env"] == [
        {"name": "BLUEPRINT_SECRET_0", "valueFrom": {"secretKeyRef": {"name": "shop", "key": "db.BLUEPRINT_SECRET_0"}}}
    ]
    assert db["resources"] == {"limits": {"memory": "512Mi", "cpu": "500m"}, "requests": {"memory": "256Mi"}}
    assert db["securityContext"] == {"runAsUser": 999, "runAsGroup": 999}
    claims = kinds(objects, "PersistentVolumeClaim")
    assert claims["data"]["spec"]["resources"]["requests"]["storage"] == "20Gi"
    assert claims["cache"]["spec"]["resources"]["requests"]["storage"] == "1Gi"
    assert answer["requirements"]["storageBytes"] == 21 * 2**30
    assert kinds(objects, "Job")["migrate"]["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    assert kinds(objects, "Service")["db"]["spec"]["clusterIP"] == "None"  # no port: headless, its name resolves
    notes = {note["path"]: note["outcome"] for note in answer["notes"]}
    assert notes == {
        "services.web.depends_on.migrate": "approximated",  # a Job: the pod does not wait for it to complete
        "services.web.ulimits": "dropped",
        "services.web.ports.0": "approximated",
        "services.web.volumes.0": "approximated",
        "volumes.cache.driver": "dropped",
        "services.debug": "dropped",
        "services.cache": "approximated",  # others name it, and it declares no port
        "services.cache.volumes.1.bind.propagation": "dropped",
        "services.cache.volumes.1": "approximated",
    }
    migrate = kinds(objects, "Job")["migrate"]["spec"]["template"]["spec"]  # depends_on: [cache], headless
    assert [init["name"] for init in migrate["initContainers"]] == ["wait-for-cache"]
    assert migrate["initContainers"][0]["command"][-1].startswith("until nslookup cache;")
    cache = kinds(objects, "Deployment")["cache"]["spec"]["template"]["spec"]
    assert cache["volumes"][0] == {"name": "empty-0", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}}
    assert taken_by_kubernetes(answer["yml"])


@pytest.mark.parametrize(
    ("text", "options", "field"),
    [
        ("services:\n  web:\n    build: .\n", {}, "target"),
        ("services:\n  My_App:\n    image: a\n  my-app:\n    image: b\n", {}, "target"),
        ("services:\n  web:\n    image: a\n", {"volume_sizes": {"nope": "1Gi"}}, "volumeSizes"),
    ],
)
def test_what_cannot_convert_is_a_422_naming_why(text, options, field):
    with pytest.raises(Invalid) as refused:
        converted(text, **options)
    assert field in refused.value.errors


def test_an_image_a_variable_leaves_empty_is_a_422_until_the_variable_is_given():
    """Compose reads `$IMAGE` unset as empty (and fills it in where it deploys); a cluster has no
    such environment, and the API server refuses a container without an image."""
    text = 'services:\n  web:\n    image: "$IMAGE"\n  db:\n    image: "postgres:${TAG}"\n'
    with pytest.raises(Invalid) as refused:
        converted(text)
    assert refused.value.errors["target"] == [
        "services.web.image: empty, as Compose reads the variables in it when none is set: a cluster runs images "
        "(declare them as parameters, or write the image)."
    ]
    declared = {"type": "object", "properties": {"IMAGE": {"type": "string", "default": "nginx"}}}
    _, answer, objects = converted(text, parameters=declared)
    assert kinds(objects, "Deployment")["web"]["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx"
    assert taken_by_kubernetes(answer["yml"])


def test_what_a_file_asks_to_be_written_out_is_bounded():
    ranges = "".join(f"      - '{first}-{first + 999}:{first}-{first + 999}'\n" for first in range(1, 60_000, 1000))
    text = f"services:\n  web:\n    image: nginx\n    ports:\n{ranges}"
    _, answer, objects = converted(text)
    (service,) = kinds(objects, "Service").values()
    assert len(service["spec"]["ports"]) == 1000
    assert {"path": "services.web.ports", "outcome": "dropped"}.items() <= answer["notes"][-1].items()


def test_groups_health_checks_without_a_test_and_published_ranges_are_each_said_once():
    _, answer, objects = converted(
        "services:\n  web:\n    image: x\n    group_add: ['1234', 5]\n    ports: ['8000-8010:8000-8010']\n"
        "    healthcheck: {interval: 5s}\n  db:\n    image: y\n    group_add: [wheel]\n"
    )
    notes = {note["path"]: note["outcome"] for note in answer["notes"]}
    assert [note["path"] for note in answer["notes"]].count("services.web.ports.0") == 1  # not one per port
    assert notes["services.web.healthcheck"] == "dropped" and notes["services.db.group_add"] == "dropped"
    web = next(one for one in objects if one["kind"] == "Deployment")
    assert web["spec"]["template"]["spec"]["securityContext"] == {"supplementalGroups": [1234, 5]}
    assert taken_by_kubernetes(answer["yml"])


def test_a_string_a_yaml_1_1_reader_would_take_for_another_type_is_quoted():
    """Dokploy's imgproxy says `NGINX_CACHE_LEVELS: 1:2`; PyYAML (YAML 1.1) reads it bare as 62."""
    values = {"NGINX_CACHE_LEVELS": "1:2", "SINCE": "2001-12-14", "SEP": "=", "CLOCK": "190:20:30.15", "ON": "on"}
    environment = "".join(f"      {name}: '{value}'\n" for name, value in values.items())
    _, answer, _ = converted(f"services:\n  web:\n    image: x\n    environment:\n{environment}")
    deployment = next(one for one in yaml.safe_load_all(answer["yml"]) if one and one["kind"] == "Deployment")
    written = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {one["name"]: one["value"] for one in written} == values
    assert taken_by_kubernetes(answer["yml"])


def test_a_variable_whose_name_kubernetes_refuses_is_dropped_saying_so():
    """Compose passes `CAFÉ` and `A=B` on to the container (there `A` holds `B=2`); Kubernetes
    takes neither name."""
    environment = "      CAFÉ: '1'\n      A=B: '2'\n      my.setting: '3'\n"
    _, answer, objects = converted(f"services:\n  web:\n    image: x\n    environment:\n{environment}")
    web = next(one for one in objects if one["kind"] == "Deployment")["spec"]["template"]["spec"]["containers"][0]
    assert web["env"] == [{"name": "my.setting", "value": "3"}]
    notes = {note["path"]: note["outcome"] for note in answer["notes"]}
    assert notes == {"services.web.environment.CAFÉ": "dropped", "services.web.environment.A=B": "dropped"}
    assert taken_by_kubernetes(answer["yml"])


def test_a_port_published_on_the_hosts_own_address_gets_its_own_note():
    _, answer, _ = converted(
        "services:\n  web:\n    image: x\n    ports: ['127.0.0.1:8080:80', '8443:443', '[::1]:53:53/udp',"
        " {target: 9000, published: '9000', host_ip: 127.0.0.1}]\n"
    )
    notes = {note["path"]: note["why"] for note in answer["notes"]}
    local = [path for path, why in notes.items() if why.startswith("published on the host's own address only")]
    assert local == ["services.web.ports.0", "services.web.ports.2", "services.web.ports.3"]
    assert notes["services.web.ports.1"].startswith("published on the host: on a cluster")


def test_a_wait_container_over_what_its_pod_declares_is_counted_as_kubernetes_counts_it():
    """A service that declares less than its wait container's limits (no profile: 16Mi, 10m) is
    counted at the wait container's on a cluster, the larger of the two, as Kubernetes counts an
    init container; Compose has no wait container (found by the generated files)."""
    from support.on_kubernetes import rendered, waits_beyond
    from support.yamls import documents

    text = "services:\n  web:\n    image: nginx\n    cpus: 0.001\n    mem_limit: 1m\n    depends_on: [db]\n"
    text += "  db:\n    image: postgres:16\n    ports: ['5432']\n    cpus: 1\n    mem_limit: 1g\n"
    compose_render, cluster, refused = rendered(text)
    assert refused is None
    wait = kinds(documents(cluster["yml"]), "Deployment")["web"]["spec"]["template"]["spec"]["initContainers"][0]
    assert wait["resources"]["limits"] == {"memory": "16Mi", "cpu": "10m"}
    assert waits_beyond(cluster["yml"]) == {"memoryBytes": 15 * 2**20, "cpuMillis": 9}
    for key, beyond in (("memoryBytes", 15 * 2**20), ("cpuMillis", 9), ("containers", 0)):
        assert cluster["requirements"][key] == compose_render["requirements"][key] + beyond, key


# Redis and an app that waits for it, as the catalogs write them: its password a secret parameter,
# the health checks naming it (the exec form and a shell script quoting it each way sh reads quotes)
GUARDED = """services:
  app:
    image: example/app:1
    environment:
      REDIS_URL: redis://:${PW}@redis:6379/0
    depends_on:
      redis: {condition: service_healthy}
    healthcheck:
      test: ["CMD-SHELL", "printf '%s|' ${PW} '${PW}' \\"${PW}\\" x${PW}"]
  redis:
    image: redis:7
    command: redis-server --requirepass ${PW}
    healthcheck:
      test: ["CMD", "printf", "%s|", "-a${PW}", "it's ${PW}"]
"""
GUARDED_PARAMETERS = {
    "type": "object",
    "properties": {"PW": {"type": "string", "writeOnly": True, "x-generate": "[A-Za-z0-9]{24}"}},
}


def test_a_health_check_that_names_a_secret_reads_it_from_the_containers_environment():
    _, answer, objects = converted(GUARDED, parameters=GUARDED_PARAMETERS)
    password = answer["used"]["PW"]
    assert password not in yaml.safe_dump_all([one for one in objects if one["kind"] != "Secret"])
    pods = {name: one["spec"]["template"]["spec"] for name, one in kinds(objects, "Deployment").items()}
    said = {}
    for name, original in (
        ("app", f"printf '%s|' {password} '{password}' \"{password}\" x{password}"),
        ("redis", f"printf '%s|' -a{password} \"it's {password}\""),
    ):
        (container,) = pods[name]["containers"]
        command = container["readinessProbe"]["exec"]["command"]
        assert command[:2] == ["/bin/sh", "-c"] and password not in command[2]
        (variable,) = [one["name"] for one in container["env"] if one["name"].startswith("BLUEPRINT_SECRET_")]
        # sh is the judge: the probe's script, with the variable the pod gets from the Secret, prints what the
        # health check printed with the value written in
        probed = subprocess.run(command, env={variable: password}, capture_output=True, text=True, check=True)
        expected = subprocess.run(["/bin/sh", "-c", original], capture_output=True, text=True, check=True)
        said[name] = probed.stdout
        assert probed.stdout == expected.stdout
    assert said["app"] == f"{password}|{password}|{password}|x{password}|"
    notes = {note["path"]: note["outcome"] for note in answer["notes"]}
    assert notes["services.redis.healthcheck"] == notes["services.app.healthcheck"] == "approximated"
    # headless (redis declares no port), waited for on the port the app names it with
    (wait,) = pods["app"]["initContainers"]
    assert wait["command"][-1].startswith("until nc -z -w 2 redis 6379;")
    assert taken_by_kubernetes(answer["yml"])
