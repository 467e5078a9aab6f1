"""A cluster many teams share: each instance's namespace its own for its life (never the
system's), every workload counted or refused, nothing cluster-scoped, and each profile's pod
security level held at fit, render and admission, for both targets, and by the Namespace itself.
Each test is the shape of a probe that got through before."""

import pytest
import yaml
from bson import ObjectId

from app.definitions import pod_security
from app.storage.database import get_db
from support.apps import make_app
from support.http import FlaskClient, assert_problem, create
from support.on_kubernetes import taken_by_kubernetes

Gi = 1024**3
TEAM = {"name": "team", "memoryCap": "4Gi", "cpuCap": "4", "containerDefaults": {"memory": "256Mi", "cpu": "100m"}}
STATEFUL = """services:
  web:
    image: nginx:1.27
    volumes:
      - data:/data
volumes:
  data:
    external: true
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: a, image: nginx:1.27, resources: {limits: {memory: 64Mi, cpu: 50m}}}
"""


def blueprint(api, yml, kind="compose", user="alice", **more):
    return create(
        api, "blueprints", user=user, name="b", blueprintType=kind, yml=yml, entitlementType="PUBLIC", **more
    ).json


def profile(api, user="alice", **fields):
    return create(api, "profiles", user=user, **{**TEAM, **fields}).json


def admit(api, made, team, name, user="alice", **body):
    sent = {"name": name, "blueprint": made["id"], "profile": team["id"], "target": "kubernetes", **body}
    return api.post("/instances", json=sent, user=user)


def objects_of(api, instance, user="alice"):
    text = api.get(f"/instances/{instance['id']}/yml", user=user).body.decode()
    return text, [one for one in yaml.safe_load_all(text) if one]


def test_a_namespace_is_held_by_one_instance_and_waits_for_its_owner(api):
    web = blueprint(api, STATEFUL)
    alices, bobs = profile(api), profile(api, user="bob")
    shop = admit(api, web, alices, "shop")
    assert shop.status == 201 and shop.json["namespace"] == "shop"
    _, objects = objects_of(api, shop.json)
    assert {one["metadata"].get("namespace", one["metadata"]["name"]) for one in objects} == {"shop"}
    # bob's instance of the same name would have written his quota over alice's and mounted her claim
    taken = assert_problem(admit(api, web, bobs, "shop", user="bob"), 409)
    assert "alice" not in taken["detail"] and "taken" in taken["detail"]
    assert assert_problem(admit(api, web, bobs, "mine", user="bob", namespace="shop"), 409)
    assert admit(api, web, bobs, "shop", user="bob", namespace="bob-shop").status == 201
    assert api.delete(f"/instances/{shop.json['id']}", user="alice").status == 204
    assert assert_problem(admit(api, web, bobs, "again", user="bob", namespace="shop"), 409)  # freed, still hers
    assert api.delete("/namespaces/shop", user="bob").status == 403
    again = {"name": "shop", "blueprint": web["id"], "profile": alices["id"], "target": "kubernetes"}
    assert api.post("/instances?dryRun=true", json=again, user="alice").status == 200  # hers to take again
    assert api.delete("/namespaces/shop", user="admin").status == 204
    assert assert_problem(api.delete("/namespaces/shop", user="admin"), 404)
    assert admit(api, web, bobs, "again", user="bob", namespace="shop").status == 201
    assert assert_problem(api.delete("/namespaces/shop", user="admin"), 409)  # held now


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public", "openshift-config"])
def test_the_clusters_own_namespaces_are_refused(api, name):
    web, team = blueprint(api, STATEFUL), profile(api)
    assert "namespace" in assert_problem(admit(api, web, team, name), 422)["errors"]
    render = {"target": "kubernetes", "namespace": name}
    assert (
        "namespace"
        in assert_problem(api.post(f"/blueprints/{web['id']}/render", json=render, user="alice"), 422)["errors"]
    )


def test_the_operator_reserves_more_namespaces():
    api = FlaskClient(make_app("mongomock", RESERVED_NAMESPACES=("ingress-nginx", "team-*")))
    web, team = blueprint(api, STATEFUL), profile(api)
    for name in ("ingress-nginx", "team-a"):
        assert "namespace" in assert_problem(admit(api, web, team, name), 422)["errors"]
    assert admit(api, web, team, "teams").status == 201


def test_a_kubernetes_blueprint_is_fitted_on_no_other_target(api):
    made, team = blueprint(api, POD, "kubernetes"), profile(api)
    refused = api.get(f"/blueprints/{made['id']}/fit?profile={team['id']}&target=compose", user="alice")
    assert "target" in assert_problem(refused, 422)["errors"]
    fitted = api.get(f"/blueprints/{made['id']}/fit?profile={team['id']}&target=kubernetes", user="alice").json
    assert fitted["podSecurity"] == {"level": "baseline", "violations": []} and fitted["fits"] is True


def test_a_replication_controller_is_counted(api):
    rc = """apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  replicas: 100
  selector: {app: a}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers:
      - {name: a, image: nginx:1.27, resources: {limits: {memory: 10Gi, cpu: "8"}}}
"""
    made = blueprint(api, rc, "kubernetes")
    assert made["requirements"]["memoryBytes"] == 1000 * Gi and made["requirements"]["containers"] == 100
    assert "memory" in assert_problem(admit(api, made, profile(api), "rc"), 409)["quota"]


PRIVILEGED_POD = """apiVersion: v1
kind: Pod
metadata: {name: root, namespace: kube-system}
spec:
  hostNetwork: true
  hostPID: true
  containers:
  - name: a
    image: busybox
    securityContext: {privileged: true}
    resources: {limits: {memory: 64Mi, cpu: 50m}}
    volumeMounts: [{name: host, mountPath: /host}]
  volumes:
  - {name: host, hostPath: {path: /}}
"""
CLUSTER_ADMIN = """apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: default, namespace: default}]
"""


CLAIM_BY_NAME = """apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {volumeName: theirs, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""
DAEMON = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: d}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec:
      containers:
      - {name: a, image: nginx:1.27, resources: {limits: {memory: 64Mi, cpu: 50m}}}
"""


def test_a_kubernetes_blueprints_instance_holds_only_its_namespace(api):
    team = profile(api, podSecurity="privileged", user="admin", entitledUsers=["alice"])
    system = assert_problem(admit(api, blueprint(api, PRIVILEGED_POD, "kubernetes"), team, "p"), 422)
    assert system["errors"]["yml"] == [
        "yml.0: Pod/root names the namespace 'kube-system': an instance's objects live in its own."
    ]
    binding = blueprint(api, POD + "---\n" + CLUSTER_ADMIN, "kubernetes")
    refused = assert_problem(admit(api, binding, team, "b"), 422)["errors"]["yml"]
    assert refused == [
        "yml.1: ClusterRoleBinding/admin is cluster-scoped: an instance holds only what lives in its own namespace."
    ]
    for extra, why in [
        ("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec: {hard: {limits.memory: 1Ti}}\n", "budget"),
        (
            "apiVersion: example.com/v1\nkind: Runner\nmetadata: {name: r}\nspec: {replicas: 100}\n",
            "example.com/Runner",
        ),
        (
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: NodePort, ports: [{port: 80}]}\n",
            "NodePort",
        ),
        (CLAIM_BY_NAME, "volumeName"),
        (
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {externalIPs: [8.8.8.8], ports: [{port: 53}]}\n",
            "externalIPs",
        ),
    ]:
        made = blueprint(api, POD + "---\n" + extra, "kubernetes")
        assert why in assert_problem(admit(api, made, team, "x"), 422)["errors"]["yml"][0]


def test_a_kubernetes_blueprints_instance_lives_in_its_namespace_with_its_quota(api):
    requests_only = POD.replace("limits: {memory: 64Mi, cpu: 50m}", "requests: {memory: 64Mi, cpu: 50m}")
    made = blueprint(api, requests_only, "kubernetes")
    shop = admit(api, made, profile(api), "shop")
    assert shop.status == 201, shop.json
    text, objects = objects_of(api, shop.json)
    assert [one["kind"] for one in objects] == ["Namespace", "ResourceQuota", "LimitRange", "NetworkPolicy", "Pod"]
    assert objects[0]["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "baseline"
    isolated = objects[3]["spec"]  # its pods admit only its own namespace's and the ingress controller's
    assert isolated["podSelector"] == {} and isolated["policyTypes"] == ["Ingress"]
    admitted = [peer["namespaceSelector"]["matchLabels"] for peer in isolated["ingress"][0]["from"]]
    assert admitted == [{"kubernetes.io/metadata.name": "shop"}, {"kubernetes.io/metadata.name": "ingress-nginx"}]
    assert objects[0]["metadata"]["labels"]["pod-security.kubernetes.io/enforce-version"] == pod_security.VERSION
    assert objects[1]["spec"]["hard"] == {"limits.memory": "64Mi", "limits.cpu": "50m", "requests.storage": "0"}
    pod = objects[4]
    assert pod["metadata"]["namespace"] == "shop"
    assert pod["spec"]["containers"][0]["resources"]["limits"] == {
        "memory": "64Mi",
        "cpu": "50m",
    }  # the quota admits it
    assert taken_by_kubernetes(text)


def test_a_daemonset_or_a_custom_kind_needs_the_profile_to_allow_it(api):
    made = blueprint(api, DAEMON, "kubernetes")
    team = profile(api)
    assert "apps/DaemonSet" in assert_problem(admit(api, made, team, "d"), 422)["errors"]["yml"][0]
    assert assert_problem(
        api.patch(f"/profiles/{team['id']}", json={"allowKinds": ["apps/DaemonSet"]}, user="alice"), 403
    )
    assert api.patch(f"/profiles/{team['id']}", json={"allowKinds": ["apps/DaemonSet"]}, user="admin").status == 200
    assert admit(api, made, team, "d").status == 201


COMPOSE_HOST = """services:
  web:
    image: nginx:1.27
    privileged: true
    network_mode: host
    volumes:
      - /:/host
      - ./conf:/etc/nginx/conf.d
"""


def test_pod_security_is_judged_on_what_each_target_runs(api):
    made = blueprint(api, COMPOSE_HOST)
    team = profile(api)
    assert team["podSecurity"] == "baseline" and team["allowKinds"] == []
    fit = api.get(f"/blueprints/{made['id']}/fit?profile={team['id']}", user="alice").json
    assert fit["podSecurity"] == {
        "level": "baseline",
        "violations": [
            {"path": "services.web.privileged", "control": "Privileged Containers"},
            {"path": "services.web.network_mode", "control": "Host Namespaces"},
            {"path": "services.web.volumes.0", "control": "HostPath Volumes"},
            {"path": "services.web.volumes.1", "control": "HostPath Volumes"},
        ],
    }
    on_cluster = api.get(f"/blueprints/{made['id']}/fit?profile={team['id']}&target=kubernetes", user="alice").json
    assert on_cluster["podSecurity"]["violations"] == [
        {"path": "services.web.privileged", "control": "Privileged Containers"}
    ]
    assert on_cluster["fits"] == fit["fits"] is True  # `fits` stays about resources
    refused = assert_problem(admit(api, made, team, "host", target="compose"), 422)["errors"]["podSecurity"]
    assert "services.web.privileged: Privileged Containers (the profile holds to baseline)" in refused
    assert assert_problem(admit(api, made, team, "host"), 422)
    assert api.patch(f"/profiles/{team['id']}", json={"podSecurity": "privileged"}, user="alice").status == 403
    assert api.patch(f"/profiles/{team['id']}", json={"podSecurity": "privileged"}, user="admin").status == 200
    admitted = admit(api, made, team, "host")
    assert admitted.status == 201
    _, objects = objects_of(api, admitted.json)
    assert objects[0]["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    assert api.patch(f"/profiles/{team['id']}", json={"podSecurity": "baseline"}, user="alice").status == 200


def test_restricted_writes_what_it_requires_and_refuses_what_contradicts_it(api):
    plain = blueprint(api, "services:\n  web:\n    image: nginx:1.27\n    ports: ['8080:80']\n")
    team = profile(api, podSecurity="restricted")
    render = {"target": "kubernetes", "profile": team["id"]}
    answer = api.post(f"/blueprints/{plain['id']}/render", json=render, user="alice").json
    assert answer["fit"]["podSecurity"] == {"level": "restricted", "violations": []}
    deployment = [one for one in yaml.safe_load_all(answer["yml"]) if one["kind"] == "Deployment"][0]
    context = deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"]
    assert context == {
        "runAsNonRoot": True,
        "allowPrivilegeEscalation": False,
        "seccompProfile": {"type": "RuntimeDefault"},
        "capabilities": {"drop": ["ALL"]},
    }
    assert {"services.web.user", "services.web.security_opt", "services.web.cap_drop"} <= {
        n["path"] for n in answer["notes"]
    }
    # the cluster's own reading of the stream: nothing restricted refuses
    spec = deployment["spec"]["template"]["spec"]
    assert pod_security.violations(pod_security.of_pod(spec, ["spec"]), "restricted") == []
    assert taken_by_kubernetes(answer["yml"])
    shop = admit(api, plain, team, "shop")
    assert shop.status == 201
    rooted = blueprint(api, "services:\n  web:\n    image: nginx:1.27\n    user: '0'\n    cap_add: [NET_ADMIN]\n")
    refused = assert_problem(admit(api, rooted, team, "root"), 422)["errors"]["podSecurity"]
    assert refused == [
        "services.web.cap_add.0: Capabilities (the profile holds to restricted)",
        "services.web.user: Running as Non-root user (the profile holds to restricted)",
    ]


def test_a_kubernetes_blueprints_instance_admitted_before_namespaces_takes_one_at_an_upgrade(api, app):
    made = blueprint(api, POD, "kubernetes")
    shop = admit(api, made, profile(api), "shop").json
    with app.app_context():  # as admitted before: the stream as written, no namespace held
        get_db().instances.update_one({"_id": ObjectId(shop["id"])}, {"$set": {"namespace": None, "yml": POD}})
        get_db().namespaces.delete_many({})
    kept = api.post(f"/instances/{shop['id']}/upgrade", json={}, user="alice")
    assert kept.status == 200 and kept.json["namespace"] is None and "kind: Namespace" not in kept.json["diff"]
    compose = blueprint(api, STATEFUL)
    moved = api.post(f"/instances/{shop['id']}/upgrade", json={"namespace": "kube-x"}, user="alice")
    assert "namespace" in assert_problem(moved, 422)["errors"]
    strict = {"podSecurity": "restricted"}
    assert api.patch(f"/profiles/{shop['profile']}", json=strict, user="alice").status == 200
    refused = api.post(f"/instances/{shop['id']}/upgrade", json={"namespace": "shop"}, user="alice")
    assert "podSecurity" in assert_problem(refused, 422)["errors"]
    elsewhere = {"name": "b", "blueprint": compose["id"], "profile": profile(api, user="bob")["id"]}
    body = {**elsewhere, "target": "kubernetes", "namespace": "shop"}
    assert api.post("/instances?dryRun=true", json=body, user="bob").status == 200  # a refused upgrade took nothing
    assert api.patch(f"/profiles/{shop['profile']}", json={"podSecurity": "baseline"}, user="alice").status == 200
    moved = api.post(f"/instances/{shop['id']}/upgrade", json={"namespace": "shop"}, user="alice")
    assert moved.status == 200 and moved.json["namespace"] == "shop" and "+kind: Namespace" in moved.json["diff"]
    again = api.post(f"/instances/{shop['id']}/upgrade", json={"namespace": "other"}, user="alice")
    assert "namespace" in assert_problem(again, 422)["errors"]
    assert assert_problem(admit(api, compose, profile(api, user="bob"), "shop", user="bob"), 409)


@pytest.mark.parametrize("kind, yml", [("compose", STATEFUL), ("kubernetes", POD)])
def test_an_admission_on_a_cluster_writes_its_stream_once_what_holds_it_first(api, monkeypatch, kind, yml):
    """The conversion (or a Kubernetes blueprint's own objects) and the Namespace, quota and
    LimitRange that hold the instance are written together, once, in that order."""
    from app.definitions import on_kubernetes

    writes = []
    writer = on_kubernetes.written
    monkeypatch.setattr(on_kubernetes, "written", lambda objects: writes.append(len(objects)) or writer(objects))
    made, team = blueprint(api, yml, kind), profile(api)
    shop = admit(api, made, team, "shop")
    assert shop.status == 201, shop.json
    text, objects = objects_of(api, shop.json)
    assert writes == [len(objects)]  # one stream, written once
    assert [one["kind"] for one in objects[:3]] == ["Namespace", "ResourceQuota", "LimitRange"]
    assert all(one["metadata"].get("namespace") == "shop" for one in objects[1:])
    assert taken_by_kubernetes(text)
    rendered = api.post(f"/blueprints/{made['id']}/render", json={"target": "kubernetes"}, user="alice")
    assert rendered.status == 200 and "kind: Namespace" not in rendered.json["yml"]  # a render holds no namespace
