"""Routes: which service answers where. A real Compose file changed at one node (an `x-routes`
added, a Traefik router label added) is read as routes and checked on write; a render for Docker
Compose writes them as Traefik labels Docker Compose accepts, a render for Kubernetes as an
Ingress or Gateway API HTTPRoutes with the profile's cluster conventions, decoded by kubectl."""

import pytest
import yaml

from support import compose_oracle as oracle
from support import corpus, gateway_api
from support.http import assert_problem, create
from support.on_kubernetes import kinds, taken_by_kubernetes
from support.yamls import documents


def gitea():
    """A real Compose file, Gitea with Postgres as its project publishes it (read when a test asks)."""
    return corpus.text("compose/gitea-postgres")


def routed():
    """Gitea's file changed at one node: a route added."""
    return gitea() + "x-routes:\n  - service: gitea\n    port: 3000\n    host: ${DOMAIN}\n"


DOMAIN = {"type": "object", "properties": {"DOMAIN": {"type": "string", "default": "git.apps.example.com"}}}
CONVENTIONS = {
    "storageClass": "fast-ssd",
    "imagePullSecrets": ["regcred"],
    "ingressClass": "nginx",
    "gateway": "infra/public",
    "tlsIssuer": "letsencrypt",
    "domain": "apps.example.com",
}


def blueprint(api, yml, **body):
    made = create(api, "blueprints", name="gitea", blueprintType="compose", yml=yml, **body)
    assert made.status == 201, made.json
    return made.json


@pytest.fixture
def team(api):
    """Alice's profile with the team's conventions, its Gateway set by an admin (an admin's alone)."""
    own = {key: value for key, value in CONVENTIONS.items() if key != "gateway"}
    made = create(api, "profiles", name="team", storageCap="100Gi", cluster=own)
    changed = api.patch(f"/profiles/{made.json['id']}", json={"cluster": CONVENTIONS}, user="admin")
    assert changed.status == 200, changed.json
    return changed.json


def render(api, made, **body):
    return api.post(f"/blueprints/{made['id']}/render", json=body, user="alice")


def test_a_blueprint_shows_its_routes_from_x_routes_and_from_traefik_labels(api):
    labelled = gitea().replace(
        "    ports:\n      - 3000:3000\n",
        "    ports:\n      - 3000:3000\n    labels:\n"
        "      - traefik.http.routers.git.rule=Host(`code.example.org`) && PathPrefix(`/git`)\n"
        "      - traefik.http.routers.git.tls.certresolver=le\n",
    )
    assert labelled != gitea()
    made = blueprint(api, labelled + routed().removeprefix(gitea()), parameters=DOMAIN)
    assert made["routes"] == [
        {"service": "gitea", "port": 3000, "host": "git.apps.example.com", "path": "/", "tls": True},
        {"service": "gitea", "port": 3000, "host": "code.example.org", "path": "/git", "tls": True},
    ]
    plain = blueprint(api, gitea())
    assert api.get(f"/blueprints/{plain['id']}", user="alice").json["routes"] == []


@pytest.mark.parametrize(
    "route, place",
    [
        ("{service: gitea, port: 3000, host: Git_Example}", "x-routes.0.host"),
        ("{service: web, port: 3000}", "x-routes.0.service"),
        ("{service: gitea, port: 70000}", "x-routes.0.port"),
        ("{service: gitea, port: 3000, path: no-slash}", "x-routes.0.path"),
        ("{service: gitea, port: 3000, tls: maybe}", "x-routes.0.tls"),
        ("{service: gitea, port: 3000, weight: 2}", "x-routes.0.weight"),
    ],
)
def test_a_route_that_cannot_be_is_a_422_naming_its_place(api, route, place):
    body = {"name": "gitea", "blueprintType": "compose", "yml": f"{gitea()}x-routes:\n  - {route}\n"}
    refused = api.post("/blueprints", json=body, user="alice")
    problem = assert_problem(refused, 422)
    assert any(message.startswith(f"{place}:") for message in problem["errors"]["yml"]), problem


def test_a_render_for_compose_writes_traefik_labels_docker_compose_accepts(api, team):
    made = blueprint(api, routed(), parameters=DOMAIN)
    rendered = render(api, made, values={"DOMAIN": "git.team.apps.example.com"}, profile=team["id"])
    assert rendered.status == 200, rendered.json
    accepted, project = oracle.config(rendered.json["yml"])
    assert accepted, project
    labels = project["services"]["gitea"]["labels"]
    assert labels["traefik.http.routers.gitea-gitea-0.rule"] == "Host(`git.team.apps.example.com`)"
    assert labels["traefik.http.services.gitea-gitea-0.loadbalancer.server.port"] == "3000"
    assert labels["traefik.http.routers.gitea-gitea-0.tls"] == "true"
    again = blueprint(api, rendered.json["yml"])  # the render kept as a blueprint: its routes once
    assert [route["host"] for route in again["routes"]] == ["git.team.apps.example.com"]


def test_a_render_for_kubernetes_writes_an_ingress_with_the_teams_conventions(api, team):
    made = blueprint(api, routed(), parameters=DOMAIN)
    rendered = render(api, made, target="kubernetes", namespace="code", profile=team["id"])
    assert rendered.status == 200, rendered.json
    found = documents(rendered.json["yml"])
    ingress = kinds(found, "Ingress")[made["id"]]  # named after the instance: a blueprint's render, its id
    assert ingress["metadata"]["annotations"] == {"cert-manager.io/cluster-issuer": "letsencrypt"}
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["tls"] == [{"hosts": ["git.apps.example.com"], "secretName": f"{made['id']}-gitea-0-tls"}]
    (rule,) = ingress["spec"]["rules"]
    assert rule["host"] == "git.apps.example.com"
    assert rule["http"]["paths"][0]["backend"] == {"service": {"name": "gitea", "port": {"number": 3000}}}
    assert kinds(found, "Service")["gitea"]["spec"]["ports"][0]["port"] == 3000
    assert {claim["spec"]["storageClassName"] for claim in kinds(found, "PersistentVolumeClaim").values()} == {
        "fast-ssd"
    }
    pods = [one["spec"]["template"]["spec"] for one in kinds(found, "Deployment").values()]
    assert pods and all(pod["imagePullSecrets"] == [{"name": "regcred"}] for pod in pods)
    assert taken_by_kubernetes(rendered.json["yml"])


def test_a_route_without_a_host_answers_on_the_instance_under_the_teams_domain(api, team):
    made = blueprint(api, gitea() + "x-routes:\n  - {service: gitea, port: 3000, path: /api}\n")
    assert made["routes"][0]["host"] is None
    rendered = render(api, made, target="kubernetes", profile=team["id"])
    (rule,) = kinds(documents(rendered.json["yml"]), "Ingress")[made["id"]]["spec"]["rules"]
    assert rule["host"] == f"{made['id']}.apps.example.com" and rule["http"]["paths"][0]["path"] == "/api"
    plain = render(api, made, target="kubernetes")  # no profile, no domain: any host, and no certificate
    ingress = kinds(documents(plain.json["yml"]), "Ingress")[made["id"]]
    assert "host" not in ingress["spec"]["rules"][0] and "tls" not in ingress["spec"]
    assert any(note["path"] == "x-routes.0" for note in plain.json["notes"])


def test_routes_as_gateway_api_httproutes_attach_to_the_profiles_gateway(api, team):
    made = blueprint(api, routed(), parameters=DOMAIN)
    rendered = render(api, made, target="kubernetes", routes="gateway", profile=team["id"])
    assert rendered.status == 200, rendered.json
    found = documents(rendered.json["yml"])
    assert "Ingress" not in {one["kind"] for one in found}
    route = kinds(found, "HTTPRoute")[f"{made['id']}-gitea-0"]
    assert route["apiVersion"] == "gateway.networking.k8s.io/v1"
    assert route["spec"]["parentRefs"] == [{"name": "public", "namespace": "infra"}]
    assert route["spec"]["hostnames"] == ["git.apps.example.com"]
    assert route["spec"]["rules"][0]["backendRefs"] == [{"name": "gitea", "port": 3000}]
    assert gateway_api.problems(list(kinds(found, "HTTPRoute").values())) == []
    broken = {**route, "spec": {**route["spec"], "hostnames": ["Git.Example.com"]}}  # the judge refuses one
    assert len(gateway_api.problems([broken])) == 1
    bare = create(api, "profiles", name="bare", storageCap="100Gi").json
    refused = render(api, made, target="kubernetes", routes="gateway", profile=bare["id"])
    assert "routes" in assert_problem(refused, 422)["errors"]
    none = render(api, made, target="kubernetes", routes="none", profile=team["id"])
    assert {"Ingress", "HTTPRoute"}.isdisjoint(one["kind"] for one in documents(none.json["yml"]))


@pytest.mark.parametrize(
    "cluster, field",
    [
        ({"gateway": "public"}, "gateway"),
        ({"gateway": "infra/public gateway"}, "gateway"),
        ({"domain": "Not A Domain"}, "domain"),
        ({"domain": "apps.example.com`) || PathPrefix(`/"}, "domain"),  # every host's traffic, on a shared Traefik
        ({"imagePullSecrets": ["ok", "Not_Ok"]}, "imagePullSecrets"),
        ({"imagePullSecrets": ["ok", "regcred_old"]}, "imagePullSecrets"),
        ({"ingressClass": "x" * 254}, "ingressClass"),
        ({"storageClass": "fast_ssd"}, "storageClass"),
        ({"tlsIssuer": "le", "extra": 1}, "extra"),
    ],
)
def test_cluster_conventions_that_kubernetes_would_refuse_are_a_422(api, cluster, field):
    """Refused whole, not by their start: each but the first of a pair began as a name."""
    refused = api.post("/profiles", json={"name": "team", "cluster": cluster}, user="alice")
    assert any(key.startswith(f"cluster.{field}") for key in assert_problem(refused, 422)["errors"])


def test_an_instance_on_kubernetes_keeps_its_routes_mode_across_an_upgrade(api, team):
    made = blueprint(api, routed(), parameters=DOMAIN, entitlementType="PUBLIC")
    sent = {"name": "code", "blueprint": made["id"], "profile": team["id"], "target": "kubernetes"}
    admitted = api.post("/instances", json={**sent, "routes": "gateway"}, user="alice")
    assert admitted.status == 201, admitted.json
    upgraded = api.post(f"/instances/{admitted.json['id']}/upgrade", json={"values": {}}, user="alice")
    assert upgraded.status == 200, upgraded.json
    text = api.get(f"/instances/{admitted.json['id']}/yml", user="alice").body.decode()
    found = [one for one in yaml.safe_load_all(text) if one]
    assert kinds(found, "HTTPRoute")["code-gitea-0"]["metadata"]["namespace"] == "code"


def test_the_ingress_controllers_namespace_is_no_instances(api, team):
    made = blueprint(api, routed(), parameters=DOMAIN, entitlementType="PUBLIC")
    refused = render(api, made, target="kubernetes", namespace="ingress-nginx")
    assert "namespace" in assert_problem(refused, 422)["errors"]
    sent = {"name": "ingress-nginx", "blueprint": made["id"], "profile": team["id"], "target": "kubernetes"}
    assert "namespace" in assert_problem(api.post("/instances", json=sent, user="alice"), 422)["errors"]


def test_the_namespace_of_any_profiles_gateway_is_no_instances(api, team):
    """Alice's team attaches its routes to the Gateway `infra/public`: nobody's instance, in any
    profile, may take `infra`, where it could replace that Gateway."""
    made = blueprint(api, routed(), parameters=DOMAIN, entitlementType="PUBLIC")
    theirs = create(api, "profiles", user="bob", name="theirs", storageCap="100Gi").json
    assert render(api, made, target="kubernetes", namespace="infra-2").status == 200
    for user, profile in (("alice", team), ("bob", theirs)):
        refused = api.post(
            f"/blueprints/{made['id']}/render", json={"target": "kubernetes", "namespace": "infra"}, user=user
        )
        assert "namespace" in assert_problem(refused, 422)["errors"]
        sent = {"name": "infra", "blueprint": made["id"], "profile": profile["id"], "target": "kubernetes"}
        assert "namespace" in assert_problem(api.post("/instances", json=sent, user=user), 422)["errors"]
    sent = {
        "name": "shop",
        "blueprint": made["id"],
        "profile": theirs["id"],
        "target": "kubernetes",
        "namespace": "infra",
    }
    assert "namespace" in assert_problem(api.post("/instances", json=sent, user="bob"), 422)["errors"]
    assert api.get("/instances", user="bob").json["items"] == []


def test_a_host_outside_the_teams_domain_is_a_422(api, team):
    made = blueprint(api, routed(), parameters=DOMAIN)
    outside = {"DOMAIN": "git.example.com"}  # the team's domain is apps.example.com
    refused = render(api, made, target="kubernetes", profile=team["id"], values=outside)
    assert assert_problem(refused, 422)["errors"]["routes"] == [
        "x-routes.0.host: 'git.example.com' is outside the profile's domain 'apps.example.com'."
    ]
    assert render(api, made, profile=team["id"], values=outside).status == 422  # for Compose too
    assert render(api, made, target="kubernetes", profile=team["id"]).status == 200  # git.apps.example.com
    assert render(api, made, target="kubernetes", values=outside).status == 200  # no profile, no domain


def test_a_host_is_routed_by_one_live_instance_whoever_owns_it(api, team):
    made = blueprint(api, routed(), parameters=DOMAIN, entitlementType="PUBLIC")
    theirs = create(api, "profiles", user="bob", name="theirs", storageCap="100Gi").json

    def deploy(user, profile, name, host, **query):
        body = {"name": name, "blueprint": made["id"], "profile": profile["id"], "values": {"DOMAIN": host}}
        return api.post(f"/instances{query.get('q', '')}", json=body, user=user)

    first = deploy("alice", team, "code", "git.apps.example.com")
    assert first.status == 201, first.json
    for query in ("?dryRun=true", ""):
        refused = assert_problem(deploy("bob", theirs, "code", "git.apps.example.com", q=query), 409)
        assert "git.apps.example.com" in refused["detail"] and "alice" not in refused["detail"]
    assert deploy("bob", theirs, "other", "other.example.org").status == 201  # another host
    moved = api.post(
        f"/instances/{first.json['id']}/upgrade", json={"values": {"DOMAIN": "git2.apps.example.com"}}, user="alice"
    )
    assert moved.status == 200, moved.json
    assert deploy("bob", theirs, "code", "git.apps.example.com").status == 201  # the old host, let go
    assert assert_problem(deploy("bob", theirs, "code2", "git2.apps.example.com"), 409)
    assert api.delete(f"/instances/{first.json['id']}", user="alice").status == 204
    assert deploy("bob", theirs, "code2", "git2.apps.example.com").status == 201  # freed by the delete


@pytest.mark.parametrize(
    "path",
    ["/a;b", "/x`) || Host(`evil.example.com", "/a b", "/a{b}", "/$$x", "/a'b", "/%2e%2e"],
)
def test_a_path_that_could_reach_a_proxys_configuration_is_a_422(api, path):
    route = '{service: gitea, port: 3000, path: "' + path.replace('"', '\\\\"') + '"}'
    body = {"name": "gitea", "blueprintType": "compose", "yml": f"{gitea()}x-routes:\n  - {route}\n"}
    refused = api.post("/blueprints", json=body, user="alice")
    assert any(message.startswith("x-routes.0.path:") for message in assert_problem(refused, 422)["errors"]["yml"])
