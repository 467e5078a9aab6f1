"""An instance's routes on a cluster: one `networking.k8s.io/v1` Ingress holding a rule per route
(the profile's ingress class; TLS through a Secret per route that cert-manager fills where the
profile names its issuer), or a Gateway API `HTTPRoute` per route attached to the profile's
Gateway; each backend a port of the service's Service."""

from app.definitions.on_kubernetes.names import label, metadata
from app.errors import Invalid

ISSUER = "cert-manager.io/cluster-issuer"


def where(route, index):
    """A route's place in the Compose file, as notes name it."""
    return ["x-routes", index] if route["router"] is None else ["services", route["service"], "labels"]


def objects(routes, names, cluster, labels, notes):
    """The objects that route to the services (`names`: a Compose name -> its Service's name)."""
    routes = [(index, route) for index, route in enumerate(routes) if route["service"] in names]
    if not routes or cluster.routes == "none":
        return []
    if cluster.routes == "gateway":
        return [_http_route(index, route, names, cluster, labels, notes) for index, route in routes]
    return [_ingress(routes, names, cluster, labels, notes)]


def _ingress(routes, names, cluster, labels, notes):
    conventions, spec, tls = cluster.conventions, {}, []
    named = metadata(label(cluster.instance), labels, cluster.namespace)
    if conventions.get("ingressClass"):
        spec["ingressClassName"] = conventions["ingressClass"]
    rules = []
    for index, route in routes:
        backend = {"service": {"name": names[route["service"]], "port": {"number": route["port"]}}}
        path = {"path": route["path"], "pathType": "Prefix", "backend": backend}
        rules.append({**({"host": route["host"]} if route["host"] else {}), "http": {"paths": [path]}})
        if not route["tls"]:
            continue
        if not (conventions.get("tlsIssuer") and route["host"]):
            why = "no host to certify" if conventions.get("tlsIssuer") else "the profile names no `tlsIssuer`"
            notes.approximated(where(route, index), f"TLS asked for, but {why}: the Ingress serves it without TLS")
            continue
        secret = label(f"{cluster.instance}-{route['service']}-{index}-tls")
        tls.append({"hosts": [route["host"]], "secretName": secret})
    if tls:
        spec["tls"] = tls
        named["annotations"] = {ISSUER: conventions["tlsIssuer"]}
    spec["rules"] = rules
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": named, "spec": spec}


def _http_route(index, route, names, cluster, labels, notes):
    gateway = cluster.conventions.get("gateway")
    if not gateway:
        raise Invalid({"routes": ["`gateway` needs the profile's cluster.gateway (namespace/name) to attach to."]})
    namespace, _, name = gateway.partition("/")
    if route["tls"]:
        notes.approximated(where(route, index), "TLS is the Gateway's: its listener for the host holds the certificate")
    rule = {
        "matches": [{"path": {"type": "PathPrefix", "value": route["path"]}}],
        "backendRefs": [{"name": names[route["service"]], "port": route["port"]}],
    }
    spec = {"parentRefs": [{"name": name, "namespace": namespace}], "rules": [rule]}
    if route["host"]:
        spec["hostnames"] = [route["host"]]
    named = metadata(label(f"{cluster.instance}-{route['service']}-{index}"), labels, cluster.namespace)
    return {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": named, "spec": spec}
