"""Blueprint definitions from the corpus (tests/corpus.py): checked per format, and measured.
Every expected `requirements` below was worked out by hand from the file, as the contract
defines them."""

import pytest

from app import definitions
from app.errors import Invalid
from support import corpus
from support.requirements import need, shown

Ki, Mi, Gi = 1024, 1024**2, 1024**3


def both(*services):
    return [f"{service}: {resource}" for service in services for resource in ("cpu", "memory")]


COMPOSE = {
    # redis 0.25g / "0.25"; web 4 replicas x 512M / 0.5
    "flask-redis": need(Gi // 4 + 4 * 512 * Mi, 250 + 4 * 500, 5),
    # gitea: replicas 2 and scale 2, mem_limit 768mb, no cpu; db: cpus "0.25", limits 1073741824b
    "gitea-postgres": need(2 * 768 * Mi + Gi, 250, 3, unbounded=["gitea: cpu"]),
    # nc 2 x (1g, '1', 10g of storage); redis 65536k, 0.1; db limits 2g (reservations ignored), cpus 1
    "nextcloud-redis-mariadb": need(2 * Gi + 64 * Mi + 2 * Gi, 2000 + 100 + 1000, 4, 2 * 10 * Gi),
    # db: limits 2gb win over mem_limit 512m, cpus 2, 20G; wordpress scale 2 x (512m, 0.75, 5g)
    "wordpress-mysql": need(2 * Gi + 2 * 512 * Mi, 2000 + 2 * 750, 3, 20 * Gi + 2 * 5 * Gi),
    # frontend scale 2, nothing; backend 3 x cpus 0.5 only; mongo 2g, "2.5", 50g
    "react-express-mongodb": need(
        2 * Gi, 3 * 500 + 2500, 6, 50 * Gi, ["backend: memory", "frontend: cpu", "frontend: memory"]
    ),
    # backend scale 4 x (128m, "0.125"); frontend nothing
    "traefik-golang": need(4 * 128 * Mi, 4 * 125, 5, unbounded=both("frontend")),
    # es01..03 and kibana mem_limit 1g, no cpus; setup nothing
    "elasticsearch-cluster": need(
        4 * Gi, 0, 5, unbounded=["es01: cpu", "es02: cpu", "es03: cpu", "kibana: cpu", "setup: cpu", "setup: memory"]
    ),
    # elasticsearch limits 1.5g; logstash mem_limit 1g; kibana nothing
    "elasticsearch-logstash-kibana": need(
        3 * Gi // 2 + Gi, 0, 3, unbounded=["elasticsearch: cpu", "logstash: cpu", *both("kibana")]
    ),
    "minecraft": need(3 * Gi // 2, 0, 1, unbounded=["minecraft: cpu"]),
    # db 1g, 1.5; backend 3 replicas, limits 256m and '0.5' win over cpus 2; proxy nothing
    "nginx-flask-mysql": need(Gi + 3 * 256 * Mi, 1500 + 3 * 500, 5, unbounded=both("proxy")),
    # redpanda limits 1g, '1.0'; etl and db nothing
    "wasmedge-kafka-mysql": need(Gi, 1000, 3, unbounded=both("etl", "db")),
    "prometheus-grafana": need(0, 0, 2, unbounded=both("prometheus", "grafana")),
    # Files that use variables, as published. Elastic's: the four `mem_limit: ${MEM_LIMIT}` have no
    # default, so es01..03 and kibana declare no known memory; nothing declares cpus; setup nothing.
    "elasticsearch-cluster-published": need(
        0, 0, 5, unbounded=both("setup", "es01", "es02", "es03", "kibana"), unresolved=["MEM_LIMIT"]
    ),
    # ${IMMICH_VERSION:-release}, ${EXPOSE_PORT-:2283:2283}, ${UPLOAD_LOCATION}: none stands in an amount
    "immich": need(0, 0, 4, unbounded=both("immich-server", "immich-machine-learning", "redis", "database")),
    # TZ=${TIMEZONE} and the like in environment lists only
    "pihole-cloudflared-doh": need(0, 0, 2, unbounded=both("pihole", "cloudflared")),
    # an anchored common block merged into 10 services, `$$` in shell scripts, ${AIRFLOW_UID:-50000};
    # airflow-cli and flower list `profiles`, so `docker compose up` starts the other 8
    "airflow": need(
        0,
        0,
        8,
        unbounded=both(
            "postgres",
            "redis",
            "airflow-apiserver",
            "airflow-scheduler",
            "airflow-dag-processor",
            "airflow-worker",
            "airflow-triggerer",
            "airflow-init",
        ),
    ),
}
KUBERNETES = {
    # StatefulSet of 3, limits 500m / 1Gi, a 1Gi claim template each; a StorageClass
    "cassandra-statefulset": need(3 * Gi, 1500, 3, 3 * Gi),
    # CronJob, parallelism 2: memory from the limit (64Mi), cpu from the request (50m)
    "cronjob": need(2 * 64 * Mi, 2 * 50, 2),
    # a custom resource (CRD kind CronTab): checked for the three basics, needs nothing
    "crontab-custom-resource": need(),
    # DaemonSet: one pod, limits memory 200Mi, requests cpu 100m
    "fluentd-daemonset": need(200 * Mi, 100, 1),
    "frontend-replicaset": need(0, 0, 3, unbounded=both("ReplicaSet/frontend/nginx")),
    # redis-master 1, redis-replica 2, frontend 3 pods, each requesting 100m / 100Mi
    "guestbook-all-in-one": need(6 * 100 * Mi, 600, 6),
    "indexed-job": need(0, 0, 3, unbounded=both("Job/indexed-job/worker")),
    # a PersistentVolume (not counted) and a 20Gi claim
    "mysql-pv": need(0, 0, 0, 20 * Gi),
    "nginx-deployment": need(0, 0, 3, unbounded=both("Deployment/nginx-deployment/nginx")),
    "pv-claim": need(0, 0, 0, 3 * Gi),
    "qos-pod": need(200 * Mi, 700, 1),
    # 1 replica, limits 250m and 512M (decimal: 512,000,000 bytes)
    "rabbitmq-statefulset": need(512_000_000, 250, 1),
    "redis-job": need(0, 0, 2, unbounded=both("Job/job-wq-2/c")),
    "service-monitor": need(),
    # PV, a 1Gi claim, a Deployment of one container without resources, a Service
    "tf-serving-stack": need(0, 0, 1, Gi, both("Deployment/tf-serving/tensorflow-serving")),
    "vllm-deployment": need(10 * Gi, 2000, 1),
    # 2 replicas without resources, a 1Gi claim template each
    "web-statefulset": need(0, 0, 2, 2 * Gi, both("StatefulSet/web/nginx")),
    # 3 replicas requesting 1Gi / "0.5", a 10Gi claim template each
    "zookeeper": need(3 * Gi, 1500, 3, 30 * Gi),
}
INVALID = {  # file -> (type, a word the message must name), from each file's own comment
    "compose/invalid-cpus-differs-from-limits": ("compose", "'cpus' and 'deploy.resources.limits.cpus'"),
    "compose/invalid-depends-on-string": ("compose", "depends_on"),
    "compose/invalid-mem-limit-differs-from-limits": ("compose", "'mem_limit' and 'deploy.resources.limits.memory'"),
    "compose/invalid-scale-differs-from-replicas": ("compose", "'scale' and 'deploy.replicas'"),
    "compose/invalid-memory-number": ("compose", "memory"),
    "compose/invalid-no-services": ("compose", "service"),
    "compose/invalid-ports-mapping": ("compose", "ports"),
    "compose/invalid-services-list": ("compose", "services"),
    "compose/invalid-unknown-service-key": ("compose", "imagez"),
    "kubernetes/invalid-apiversion-number": ("kubernetes", "apiVersion"),
    "kubernetes/invalid-containers-mapping": ("kubernetes", "containers"),
    "kubernetes/invalid-missing-name": ("kubernetes", "name"),
    "kubernetes/invalid-replicas-three": ("kubernetes", "replicas"),
    "kubernetes/invalid-second-document-without-kind": ("kubernetes", "kind"),
}


def requirements(kind, name):
    return definitions.requirements(kind, corpus.text(name))


def test_the_corpus_is_covered():
    assert len(COMPOSE) >= 10 and len(KUBERNETES) >= 10
    files = {path.stem for path in corpus.folder().glob("*/*.yml") if not path.stem.startswith("invalid-")}
    assert set(COMPOSE) | set(KUBERNETES) <= files


@pytest.mark.parametrize("name", sorted(COMPOSE))
def test_compose_files_are_measured(name):
    assert shown(requirements("docker-compose", f"compose/{name}")) == COMPOSE[name]


def test_sentry_self_hosted_as_published():
    """57 services, 29 of them behind `profiles`, and 63 `$` (variables with and without defaults,
    `$$` in scripts); no service declares an amount, so each of the 28 `docker compose up` starts
    is unbounded for both."""
    import yaml

    text = corpus.text("compose/sentry-self-hosted")
    declared = yaml.safe_load(text)["services"]
    started = [name for name, service in declared.items() if not service.get("profiles")]
    assert (len(declared), len(started)) == (57, 28)
    assert shown(definitions.requirements("compose", text)) == need(0, 0, 28, unbounded=both(*started))


@pytest.mark.parametrize("name", sorted(KUBERNETES))
def test_kubernetes_manifests_are_measured(name):
    assert shown(requirements("k8s", f"kubernetes/{name}")) == KUBERNETES[name]


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_definitions_name_the_problem_and_its_place(name):
    kind, word = INVALID[name]
    with pytest.raises(Invalid) as info:
        requirements(kind, name)
    messages = info.value.errors["yml"]
    assert 1 <= len(messages) <= definitions.MAX_PROBLEMS
    assert any(word in message for message in messages), messages
    assert all(": " in message for message in messages)  # each names its place first


@pytest.mark.parametrize(
    "kind, checked_as",
    [
        ("Compose", "compose"),
        ("DOCKER-COMPOSE", "compose"),
        ("docker_compose", "compose"),
        ("K8S", "kubernetes"),
        ("Kubernetes", "kubernetes"),
        ("helm", None),
    ],
)
def test_formats_are_matched_case_insensitively(kind, checked_as):
    assert definitions.format_of(kind) is (checked_as and definitions.format_of(checked_as))
    assert definitions.format_of("compose") is not definitions.format_of("kubernetes")


def test_other_types_are_only_yaml():
    assert definitions.requirements("helm", "anything: 1") is None
    assert definitions.requirements(None, "services: 1") is None
    assert definitions.requirements("compose", None) is None


@pytest.mark.parametrize(
    "kind, text, place",
    [
        ("compose", "services:\n  web:\n    image: x\n    deploy: {replicas: 'three'}", "services.web.deploy.replicas"),
        ("compose", "services:\n  web:\n    image: x\n    deploy: {replicas: '-3'}", "services.web.deploy.replicas"),
        ("compose", "services:\n  web:\n    image: x\n    scale: -2", "services.web.scale"),
        ("compose", "services:\n  web:\n    image: x\n    mem_limit: '-1'", "services.web.mem_limit"),
        ("compose", "services:\n  web:\n    image: x\n    cpus: lots", "services.web.cpus"),
        (
            "compose",
            "services:\n  web:\n    image: x\n    deploy: {resources: {limits: {memory: 1.5x}}}",
            "services.web.deploy.resources.limits.memory",
        ),
        ("compose", "services:\n  web:\n    image: x\n    mem_limit: 9999999999999999g", "services.web.mem_limit"),
        (
            "compose",
            "services:\n  web:\n    image: x\n    profiles: [debug]\n    shm_size: 1mi",
            "services.web.shm_size",
        ),
        (
            "compose",
            "services:\n  web:\n    image: x\n    healthcheck: {interval: '10'}",
            "services.web.healthcheck.interval",
        ),
        (
            "compose",
            "services:\n  web:\n    image: x\n    deploy: {replicas: 9223372036854775807}\n    mem_limit: 2",
            "web: the totals",
        ),
        (
            "kubernetes",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
            "    image: x\n    resources: {limits: {memory: 1e400}}",
            "Pod/p: spec.containers.0.resources.limits.memory",
        ),
        (
            "kubernetes",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
            "    image: x\n    resources: {requests: {cpu: '-1'}}",
            "Pod/p: spec.containers.0.resources.requests.cpu",
        ),
        (
            "kubernetes",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: '3'}",
            "Deployment/d: spec.replicas",
        ),
        ("kubernetes", "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: d}", "Deployment/d: kind"),
        (
            "kubernetes",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2147483648}",
            "Deployment/d: spec.replicas",
        ),
        (
            "kubernetes",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
            "    image: x\n    ports: [{containerPort: 80}, {containerPort: -2147483648}]",
            "Pod/p: spec.containers.0.ports.1.containerPort",
        ),
        ("kubernetes", "- a list\n- not a manifest", "document 1"),
        ("compose", "services:\n  web: {image: x}\n---\nservices:\n  db: {image: y}", "(the document)"),
    ],
)
def test_wrong_values_where_the_measurement_reads_are_refused_with_their_place(kind, text, place):
    with pytest.raises(Invalid) as info:
        definitions.requirements(kind, text)
    assert any(message.startswith(place) for message in info.value.errors["yml"]), info.value.errors


def test_an_int64_field_holds_what_an_int32_field_cannot():
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  activeDeadlineSeconds: N\n"
        "  containers: [{name: a, image: x}]"
    )
    assert definitions.requirements("kubernetes", text.replace("N", str(2**31)))
    with pytest.raises(Invalid) as info:
        definitions.requirements("kubernetes", text.replace("N", str(2**63)))
    assert "(a 64-bit integer)" in str(info.value.errors)


def test_a_compose_count_may_be_a_string_of_digits_as_compose_casts_it():
    text = "services:\n  web:\n    image: x\n    deploy: {replicas: '3'}\n    mem_limit: 1k\n    cpus: '1'"
    assert shown(definitions.requirements("compose", text)) == need(3 * Ki, 3000, 3)


def test_at_most_20_problems_are_listed():
    services = "".join(f"  s{i}:\n    imagez: x\n" for i in range(40))
    with pytest.raises(Invalid) as info:
        definitions.requirements("compose", "services:\n" + services)
    assert len(info.value.errors["yml"]) == 20


def test_values_json_has_no_type_for_are_read_as_docker_compose_reads_them():
    """An unquoted date is a timestamp to Compose: refused where it wants text, taken in an
    extension; bytes, which JSON Schema cannot take either, are checked as text."""
    text = "services:\n  web:\n    image: x\n    labels: {built: 2026-11-22}\n    mem_limit: 1k"
    with pytest.raises(Invalid) as info:
        definitions.requirements("compose", text)
    assert info.value.errors["yml"] == [
        "services.web.labels.built: a date where Compose wants text or a number (quote it)."
    ]
    extension = "x-built: 2026-11-22\nservices:\n  web:\n    image: x\n    x-at: 2026-11-22\n    mem_limit: 1k"
    assert definitions.requirements("compose", extension)["memoryBytes"] == Ki
    with pytest.raises(Invalid) as info:
        definitions.requirements("compose", "services:\n  web:\n    image: !!binary aGk=\n    x: 1")
    assert any(message.startswith("services.web") for message in info.value.errors["yml"])


# Through the API

WEB = "services:\n  web:\n    image: nginx\n    mem_limit: 1g\n    cpus: 0.5\n"


def test_requirements_follow_every_write(api):
    from support.http import create

    created = create(api, "blueprints", blueprintType="Compose", yml=WEB).json
    path = f"/blueprints/{created['id']}"
    assert created["requirements"] == need(Gi, 500, 1)
    assert api.patch(path, json={"name": "renamed"}, user="alice").json["requirements"] == need(Gi, 500, 1)
    bigger = WEB.replace("1g", "2g")
    assert api.patch(path, json={"yml": bigger}, user="alice").json["requirements"] == need(2 * Gi, 500, 1)
    assert api.patch(path, json={"blueprintType": "helm"}, user="alice").json["requirements"] is None
    refused = api.patch(path, json={"blueprintType": "k8s"}, user="alice")  # the stored yml is no manifest
    assert refused.status == 422 and refused.json["errors"]["yml"]
    assert api.get(path, user="alice").json["blueprintType"] == "helm"
    assert api.put(path, json={"blueprintType": "compose"}, user="alice").json["requirements"] is None  # no yml


def test_an_invalid_definition_is_a_422_naming_yml(api):
    r = api.post(
        "/blueprints", json={"blueprintType": "compose", "yml": "services:\n  web:\n    imagez: x"}, user="alice"
    )
    assert r.status == 422 and list(r.json["errors"]) == ["yml"]
    assert r.json["errors"]["yml"] == [
        "services.web: Unevaluated properties are not allowed ('imagez' was unexpected)",
        "services.web: has neither an image nor a build context specified.",
    ]


@pytest.mark.parametrize("required", ["", "1"])
def test_without_the_corpus_folder_its_tests_skip_naming_it_or_fail_where_it_is_required(
    monkeypatch, tmp_path, required
):
    monkeypatch.setattr(corpus, "FOLDER", tmp_path / "absent")
    monkeypatch.setenv("REQUIRE_CORPUS", required)
    outcome = pytest.fail.Exception if required else pytest.skip.Exception
    with pytest.raises(outcome, match=str(tmp_path / "absent")):
        corpus.text("compose/minecraft")


@pytest.mark.parametrize(
    "metadata, place",
    [
        ("{name: x, labels: [release=prometheus]}", "ServiceMonitor/x: metadata.labels: "),
        ("{name: x, namespace: 1000.0}", "ServiceMonitor/x: metadata.namespace: "),
    ],
)
def test_a_custom_resource_s_metadata_is_kubernetes_own_as_kubectl_decodes_it(metadata, place):
    """Found by tests/definitions/test_mutation_oracle.py: kubectl refuses these; the rest of a custom
    resource is its definition's, which the service does not have."""
    text = f"apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {metadata}\nspec: {{any: 1}}\n"
    with pytest.raises(Invalid) as info:
        definitions.requirements("kubernetes", text)
    assert any(message.startswith(place) for message in info.value.errors["yml"]), info.value.errors
    assert definitions.requirements("kubernetes", text.replace(metadata, "{name: x, labels: {a: b}}"))


def test_an_empty_kind_is_refused_as_kubectl_refuses_it():
    with pytest.raises(Invalid) as info:
        definitions.requirements("kubernetes", "apiVersion: v1\nkind: ''\nmetadata: {name: x}\n")
    assert info.value.errors["yml"] == ["/x: kind: must not be empty (kubectl: Object 'Kind' is missing)."]


@pytest.mark.parametrize(
    "body, loader",
    [
        ({"blueprintType": "k8s"}, "KubernetesLoader"),
        ({"blueprintType": "docker-compose"}, "ComposeLoader"),
        ({}, "ComposeLoader"),  # a change keeping the stored type: most are Compose
    ],
)
def test_a_body_s_definition_is_read_once_by_its_format_s_own_loader(body, loader):
    from app.blueprints.schemas import BlueprintSchema

    parsed = BlueprintSchema(partial=True).load({**body, "yml": "a: yes"})["yml"]
    assert parsed.text == "a: yes" and parsed.loader.__name__ == loader
    assert parsed.documents == [{"a": loader == "KubernetesLoader" or "yes"}]  # go-yaml v2's `yes`, v3's text
