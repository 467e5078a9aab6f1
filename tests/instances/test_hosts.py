"""Hosts held on both targets: whatever writes a host (x-routes, Traefik labels read with their
whole rule grammar, a Kubernetes blueprint's own Ingress and HTTPRoute), one live instance holds
it with every path under its prefix, whoever owns it; wildcards and routes that answer on any
host are refused. Real files changed at one node: the corpus' gitea on Compose, its whoami
Deployment on Kubernetes."""

import pytest

from support import corpus
from support.http import assert_problem, create


def gitea():
    """A real Compose file, Gitea with Postgres as its project publishes it (read when a test asks)."""
    return corpus.text("compose/gitea-postgres")


HOST = {
    "type": "object",
    "properties": {"HOST": {"type": "string", "default": "a.example.com"}, "PATH": {"type": "string", "default": "/"}},
}


def routed():
    """Gitea's file changed at one node: a route added."""
    return gitea() + "x-routes:\n  - {service: gitea, port: 3000, host: '${HOST}', path: '${PATH}'}\n"


INGRESS = """---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  rules:
    - host: ${HOST}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service: {name: web, port: {number: 80}}
"""
WEB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          resources: {limits: {memory: 64Mi, cpu: 100m}}
"""


def labelled(rule):
    """The corpus' gitea with one Traefik router label on its web service."""
    changed = gitea().replace(
        "    ports:\n      - 3000:3000\n", f"    ports:\n      - 3000:3000\n    labels:\n      - '{rule}'\n", 1
    )
    assert changed != gitea()
    return changed


@pytest.fixture
def profiles(api):
    """A profile each for alice and carol, room for a few instances, no domain."""
    return {
        user: create(api, "profiles", user=user, name=user, storageCap="500Gi").json
        for user in ("alice", "bob", "carol")
    }


def held(api, profiles, host, path="/"):
    """Whether a third tenant (bob) is refused `host` and `path` on Compose: someone holds them."""
    made = blueprint(api, routed())
    values = {"HOST": host, "PATH": path}
    body = {"name": "probe", "blueprint": made["id"], "profile": profiles["bob"]["id"], "values": values}
    return api.post("/instances?dryRun=true", json=body, user="bob").status == 409


def blueprint(api, yml, kind="compose", parameters=HOST):
    body = {"name": "routed", "blueprintType": kind, "yml": yml, "parameters": parameters, "entitlementType": "PUBLIC"}
    return create(api, "blueprints", **body).json


def deploy(api, user, profiles, made, name, values=None, **target):
    body = {"name": name, "blueprint": made["id"], "profile": profiles[user]["id"], "values": values or {}, **target}
    return api.post("/instances", json=body, user=user)


def test_a_host_held_on_compose_is_held_on_kubernetes_and_the_other_way(api, profiles):
    made = blueprint(api, routed())
    first = deploy(api, "alice", profiles, made, "pay", {"HOST": "pay.a.example.com"})
    assert first.status == 201, first.json
    assert held(api, profiles, "pay.a.example.com")
    on_kubernetes = deploy(api, "carol", profiles, made, "pay2", {"HOST": "pay.a.example.com"}, target="kubernetes")
    assert "alice" not in assert_problem(on_kubernetes, 409)["detail"]
    books = deploy(api, "carol", profiles, made, "books", {"HOST": "books.example.com"}, target="kubernetes")
    assert books.status == 201, books.json
    assert held(api, profiles, "books.example.com")  # held as on Compose
    assert assert_problem(deploy(api, "alice", profiles, made, "books2", {"HOST": "books.example.com"}), 409)
    twice = deploy(api, "alice", profiles, made, "books3", {"HOST": "books.example.com"}, target="kubernetes")
    assert assert_problem(twice, 409)


@pytest.mark.parametrize("path", ["/login", "/loginx", "/"])
def test_a_held_prefix_covers_every_path_under_it_and_a_wider_one_is_refused(api, profiles, path):
    made = blueprint(api, routed())
    held = {"HOST": "shop2.a.example.com", "PATH": "/login" if path == "/" else "/"}
    assert deploy(api, "alice", profiles, made, "shop", held).status == 201
    under = {"HOST": "shop2.a.example.com", "PATH": path}
    for query in ("?dryRun=true", ""):
        body = {"name": "shop", "blueprint": made["id"], "profile": profiles["carol"]["id"], "values": under}
        assert_problem(api.post(f"/instances{query}", json=body, user="carol"), 409)
    other = {"HOST": "shop3.a.example.com", "PATH": path}  # another host: free
    assert deploy(api, "carol", profiles, made, "shop", other).status == 201


def test_one_instance_may_hold_a_prefix_and_a_path_under_it(api, profiles):
    yml = routed() + "  - {service: gitea, port: 3000, host: '${HOST}', path: /api}\n"
    made = blueprint(api, yml)
    both = deploy(api, "alice", profiles, made, "shop", {"HOST": "own.example.com"})
    assert both.status == 201, both.json
    assert api.delete(f"/instances/{both.json['id']}", user="alice").status == 204
    assert deploy(api, "carol", profiles, made, "shop", {"HOST": "own.example.com"}).status == 201  # let go


@pytest.mark.parametrize(
    "values, why",
    [
        ({"HOST": "*.a.example.com"}, "wildcard"),
        ({"HOST": ""}, "names no host"),
    ],
)
def test_a_wildcard_and_a_route_without_a_host_are_refused_where_no_domain_gives_one(api, profiles, values, why):
    made = blueprint(api, routed())
    for target in ("compose", "kubernetes"):
        refused = assert_problem(deploy(api, "carol", profiles, made, "wild", values, target=target), 422)
        assert why in " ".join(refused["errors"]["routes"]), refused
    assert api.get("/instances", user="carol").json["items"] == []


@pytest.mark.parametrize(
    "rule, held_too",
    [
        ("Host(`x.b.example.com`) || Host(`shop.a.example.com`)", [("x.b.example.com", "/")]),
        (
            "(Host(`shop.a.example.com`) && PathPrefix(`/api`)) || Path(`/x`) && Host(`y.example.com`)",
            [("y.example.com", "/x")],
        ),
        ("Host(`a.example.com`, `shop.a.example.com`)", [("a.example.com", "/")]),
    ],
)
def test_a_traefik_rule_is_read_whole_and_every_host_it_names_is_held(api, profiles, rule, held_too):
    assert (
        deploy(api, "alice", profiles, blueprint(api, routed()), "shop", {"HOST": "shop.a.example.com"}).status == 201
    )
    made = blueprint(api, labelled(f"traefik.http.routers.r.rule={rule}"), parameters=None)
    assert_problem(deploy(api, "carol", profiles, made, "sneak"), 409)
    assert not any(held(api, profiles, host, path) for host, path in held_too)
    shop = api.get("/instances", user="alice").json["items"][0]
    assert api.delete(f"/instances/{shop['id']}", user="alice").status == 204
    admitted = deploy(api, "carol", profiles, made, "own")
    assert admitted.status == 201, admitted.json
    assert all(held(api, profiles, host, path) for host, path in held_too)


@pytest.mark.parametrize(
    "rule, named",
    [
        ("HostRegexp(`.+`)", "HostRegexp"),
        ("HostSNI(`broker.example.com`)", "HostSNI"),
        ("Host(`a.example.com`) && !PathPrefix(`/admin`)", "negates"),
        ("ClientIP(`10.0.0.0/8`)", "ClientIP"),
        ("PathPrefix(`/`)", "names no host"),
        ("Host(`a.example.com`", "does not read"),
    ],
)
def test_a_traefik_rule_the_service_cannot_hold_is_a_422_naming_the_label(api, profiles, rule, named):
    """Stored (a template may carry it), refused where the labels are written: on Compose. On a
    cluster no Traefik reads them, so what routes there is what the conversion writes."""
    made = blueprint(api, labelled(f"traefik.http.routers.r.rule={rule}"), parameters=None)
    refused = assert_problem(deploy(api, "carol", profiles, made, "any"), 422)
    assert refused["errors"]["routes"][0].startswith("services.gitea.labels: traefik.http.routers.r.rule")
    assert named in refused["errors"]["routes"][0]
    on_kubernetes = deploy(api, "carol", profiles, made, "any", target="kubernetes")
    if named == "names no host":  # written as an Ingress rule that would answer on any host
        assert_problem(on_kubernetes, 422)
    else:
        assert on_kubernetes.status == 201, on_kubernetes.json
        assert "kind: Ingress" not in api.get(f"/instances/{on_kubernetes.json['id']}/yml", user="carol").body.decode()


def test_a_kubernetes_blueprints_own_ingress_holds_its_host_and_is_held_to_the_domain(api, profiles):
    made = blueprint(api, WEB + INGRESS, kind="kubernetes")
    assert deploy(api, "alice", profiles, made, "pay", {"HOST": "pay.a.example.com"}, target="kubernetes").status == 201
    theirs = deploy(api, "carol", profiles, made, "pay2", {"HOST": "pay.a.example.com"})
    assert_problem(theirs, 409)
    on_compose = deploy(api, "carol", profiles, blueprint(api, routed()), "pay3", {"HOST": "pay.a.example.com"})
    assert_problem(on_compose, 409)
    hostless = blueprint(api, WEB + INGRESS.replace("    - host: ${HOST}\n      http:", "    - http:"), "kubernetes")
    assert "names no host" in " ".join(
        assert_problem(deploy(api, "carol", profiles, hostless, "any"), 422)["errors"]["routes"]
    )
    scoped = create(
        api, "profiles", user="carol", name="b", storageCap="500Gi", cluster={"domain": "b.example.com"}
    ).json
    body = {"name": "out", "blueprint": made["id"], "profile": scoped["id"], "values": {"HOST": "shop.c.example.com"}}
    outside = assert_problem(api.post("/instances", json=body, user="carol"), 422)
    assert outside["errors"]["routes"] == [
        "Ingress/web: host: 'shop.c.example.com' is outside the profile's domain 'b.example.com'."
    ]


def test_a_kubernetes_blueprints_http_route_holds_its_hostnames(api, profiles):
    route = """---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  hostnames: ["${HOST}"]
  rules:
    - matches: [{path: {type: PathPrefix, value: /app}}]
      backendRefs: [{name: web, port: 80}]
"""
    made = blueprint(api, WEB + route, kind="kubernetes")
    first = deploy(api, "alice", profiles, made, "gw", {"HOST": "gw.example.com"})
    assert first.status == 201, first.json
    assert held(api, profiles, "gw.example.com", "/app/x") and not held(api, profiles, "gw.example.com", "/b")
    assert_problem(deploy(api, "carol", profiles, blueprint(api, routed()), "gw", {"HOST": "gw.example.com"}), 409)


@pytest.mark.parametrize(
    "annotation",
    [
        "nginx.ingress.kubernetes.io/configuration-snippet",
        "nginx.ingress.kubernetes.io/auth-url",
        "nginx.ingress.kubernetes.io/server-snippet",
        "nginx.ingress.kubernetes.io/use-regex",
    ],
)
def test_an_ingress_annotation_that_writes_the_controllers_configuration_is_a_422_naming_it(api, profiles, annotation):
    annotated = INGRESS.replace("  name: web\n", f"  name: web\n  annotations:\n    {annotation}: 'x'\n")
    made = blueprint(api, WEB + annotated, kind="kubernetes")
    refused = assert_problem(deploy(api, "carol", profiles, made, "snip", {"HOST": "snip.example.com"}), 422)
    assert annotation in refused["errors"]["yml"][0] and "Ingress/web" in refused["errors"]["yml"][0]
    safe = INGRESS.replace(
        "  name: web\n", "  name: web\n  annotations:\n    nginx.ingress.kubernetes.io/ssl-redirect: 'true'\n"
    )
    kept = blueprint(api, WEB + safe, kind="kubernetes")
    assert deploy(api, "carol", profiles, kept, "snip", {"HOST": "snip.example.com"}).status == 201


GATEWAY_ROUTE = """---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  parentRefs: [{name: public, namespace: PARENT}]
  hostnames: [gw.example.com]
  rules:
    - backendRefs: [{name: web, port: 80, namespace: BACKEND}]
"""


@pytest.mark.parametrize(
    "parent, backend, refused",
    [
        ("alices-space", "gw", "attaches to 'alices-space'"),
        ("infra", "alices-space", "routes into 'alices-space'"),
        ("infra", "gw", None),  # the profile's gateway, its own namespace
    ],
)
def test_an_http_route_reaching_another_namespace_is_a_422(api, profiles, parent, backend, refused):
    profile = create(api, "profiles", user="carol", name="gw", storageCap="1Gi")
    gateway = {"cluster": {"gateway": "infra/public"}}  # an admin's to set
    assert api.patch(f"/profiles/{profile.json['id']}", json=gateway, user="admin").status == 200
    route = GATEWAY_ROUTE.replace("PARENT", parent).replace("BACKEND", backend)
    made = blueprint(api, WEB + route, kind="kubernetes")
    body = {"name": "gw", "blueprint": made["id"], "profile": profile.json["id"], "values": {}}
    answer = api.post("/instances", json=body, user="carol")
    if refused is None:
        assert answer.status == 201, answer.json
    else:
        assert refused in assert_problem(answer, 422)["errors"]["yml"][0]


def test_a_network_policy_named_like_the_namespaces_isolation_is_a_422(api, profiles):
    policy = """---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: open-isolated}
spec: {podSelector: {}, policyTypes: [Ingress], ingress: [{}]}
"""
    made = blueprint(api, WEB + policy, kind="kubernetes")
    refused = assert_problem(deploy(api, "carol", profiles, made, "open"), 422)
    assert "isolates the namespace" in refused["errors"]["yml"][0]
    assert deploy(api, "carol", profiles, made, "other").status == 201  # in namespace `other`: its own name


@pytest.mark.parametrize("replicas", [3_000_000_000, 20_000_000_000, 2**70])
def test_a_count_past_what_kubernetes_holds_is_a_422_where_it_is_written(api, profiles, replicas):
    refused = api.post(
        "/blueprints",
        json={
            "name": "many",
            "blueprintType": "kubernetes",
            "yml": WEB.replace("replicas: 1", f"replicas: {replicas}"),
        },
        user="alice",
    )
    assert "spec.replicas" in " ".join(assert_problem(refused, 422)["errors"]["yml"])
