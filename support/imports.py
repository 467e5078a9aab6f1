"""POST /imports as the tests send it, its report by template key, and the judgement of what it
created by Docker Compose and, rendered for a cluster, by kubectl."""

from app.definitions.on_kubernetes.names import label
from support import compose_oracle, on_kubernetes, yamls


def imported(api, fmt, document, source="catalog", user="alice", dry_run=False, **body):
    response = api.post(
        "/imports" + ("?dryRun=true" if dry_run else ""),
        json={"format": fmt, "source": source, "document": document, **body},
        user=user,
    )
    assert response.status == 200, response.json
    return response.json


def by_key(report):
    return {result["key"]: result for result in report["results"]}


def refused_by_the_tools(api, report, profile=None, left_over=None, files=None):
    """(template, why) of each blueprint the import `report` created that the tools refuse, rendered
    with its required values (a generated one given "example", another its first example, else
    "x") and `profile`'s defaults: the render must answer 200 and hold nothing `left_over` (a
    platform's syntax) finds; Docker Compose must accept it (in a folder holding `files`); and its
    render for Kubernetes must carry over each service Compose starts, in a stream kubectl decodes
    (one run for the catalog), or be refused for a reason the contract gives (`allowed_refusal`);
    both renders route what the blueprint's routes say (`unrouted`), and where the profile has a
    domain, no domain is given: each host is the profile's (`outside`)."""
    refused, streams = [], []
    domain = profile and (api.get(f"/profiles/{profile}", user="alice").json["cluster"] or {}).get("domain")
    for result in [result for result in report["results"] if result["outcome"] == "created"]:
        name = result.get("key") or result["title"]
        blueprint = api.get(f"/blueprints/{result['id']}", user="alice").json
        declared = blueprint["parameters"] or {"properties": {}}
        properties = declared["properties"]
        values = {
            key: "example" if "x-generate" in properties[key] else properties[key].get("examples", ["x"])[0]
            for key in declared.get("required", [])
            if not (domain and properties[key].get("x-role") == "domain")
        }
        body = {"values": values, **({"profile": profile} if profile else {})}
        path = f"/blueprints/{result['id']}/render"
        render = api.post(path, json=body, user="alice")
        assert render.status == 200, (name, render.json)
        assert left_over is None or not left_over.search(render.json["yml"]), name
        accepted, project = compose_oracle.config(render.json["yml"], files=files)
        if not accepted:
            refused.append((name, project))
            continue
        cluster = api.post(path, json={**body, "target": "kubernetes"}, user="alice")
        if cluster.status != 200 and not allowed_refusal(cluster.json):
            refused.append((name, cluster.json))
        if cluster.status != 200:
            continue
        refused += [(name, problem) for problem in unrouted(blueprint["routes"], project, cluster.json["yml"])]
        if domain:
            refused += [(name, problem) for problem in outside(domain, render.json, cluster.json)]
        written = yamls.document(render.json["yml"])["services"]
        refused += [(name, problem) for problem in on_kubernetes.unfaithful(project, written, cluster.json["yml"])]
        streams.append(cluster.json["yml"])
    assert on_kubernetes.taken_by_kubernetes("---\n".join(streams))
    return refused


def unrouted(routes, project, stream):
    """What a render fails to route of a blueprint's `routes`: a Traefik router on each routed
    service of the Compose `project` (as Docker Compose read it), an Ingress rule per route on the
    services the Kubernetes `stream` runs."""
    missing = []
    for route in routes:
        labels = project["services"].get(route["service"], {}).get("labels") or {}
        if not any(key.startswith("traefik.http.routers.") and key.endswith(".rule") for key in labels):
            missing.append(f"no Traefik router on {route['service']}")
    found = yamls.documents(stream)
    rules = [rule for one in found if one["kind"] == "Ingress" for rule in one["spec"]["rules"]]
    started = {one["metadata"]["name"] for one in found if one["kind"] == "Service"}
    written = [route for route in routes if route["port"] is not None and "unheld" not in route]
    expected = [route for route in written if label(route["service"]) in started]
    if len(rules) != len(expected):
        missing.append(f"{len(rules)} Ingress rules for {len(expected)} routes")
    return missing


def outside(domain, compose, kubernetes):
    """What does not answer on the team's `domain` of a render for Compose and one for Kubernetes:
    a route whose host lies outside it, or that neither a Traefik rule nor an Ingress rule names;
    a blueprint with routes whose render has no host at all."""
    missing = []
    for target, answer in (("compose", compose), ("kubernetes", kubernetes)):
        hosts = {route["host"] for route in answer["routes"] if route["host"]}  # not a label's HostRegexp
        missing += [f"{target}: no host" for _ in answer["routes"][:1] if not hosts]
        missing += [f"{target}: {host!r} outside {domain}" for host in hosts if not host.endswith("." + domain)]
        if target == "compose":  # a rule's Host() stands in a label alone
            missing += [f"compose: no rule for {host}" for host in hosts if f"Host(`{host}`)" not in answer["yml"]]
        else:
            found = yamls.documents(answer["yml"])
            ingress = {rule.get("host") for one in found if one["kind"] == "Ingress" for rule in one["spec"]["rules"]}
            missing += [f"kubernetes: no Ingress rule for {host}" for host in hosts if host not in ingress]
    return missing


def allowed_refusal(problem):
    """Whether a render for Kubernetes was refused for a reason the contract gives: a service with
    `build` and no `image` (a cluster runs images), or two names that would be one object's."""
    said = problem.get("errors", {}).get("target") or []
    return bool(said) and all("with `build` and no `image`" in one or "would both be" in one for one in said)


# a team's namespace objects as kubectl writes them: what the `kubernetes-quota` import reads
QUOTA = """apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: team-a}
spec:
  hard:
    requests.memory: 1Gi
    limits.memory: 4Gi
    limits.cpu: "4"
    requests.storage: 100Gi
    pods: "20"
    count/deployments.apps: "5"
  scopes: [NotTerminating]
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: team-a}
spec:
  limits:
  - type: Container
    defaultRequest: {memory: 128Mi}
    default: {memory: 256Mi, cpu: 500m}
    max: {memory: 2Gi}
    min: {memory: 16Mi}
  - type: PersistentVolumeClaim
    max: {storage: 50Gi}
"""
