"""A rendered Compose file as the objects a Kubernetes cluster runs: the project Docker Compose
would start (its variables set, the profile's defaults written in, the services no profile leaves
out), each service a Deployment (a Job where others wait for it to complete) and a Service, its
named volumes claims, its configs and secrets ConfigMaps and Secrets, in the order they are
applied; every field of the file not carried over exactly is named in `notes`. Why it reads the
project rather than the text: docs/decisions/06-compose-on-kubernetes.md."""

from app.definitions import placeholders
from app.definitions.compose_load import cast, services, started
from app.definitions.kubernetes import INT32
from app.definitions.on_kubernetes import ingress, isolation, mounts, network, order, pods
from app.definitions.on_kubernetes.model import Service
from app.definitions.on_kubernetes.names import Names, hosts_renamed, label, metadata, service_label
from app.definitions.on_kubernetes.notes import WHY, Notes
from app.definitions.schemas import listed, mapping
from app.errors import Invalid
from app.model import yamlwriter

NAME = "app.kubernetes.io/name"
INSTANCE = "app.kubernetes.io/instance"
TOP_LEVEL = frozenset({"services", "volumes", "configs", "secrets", "name", "version"})
NO_PORT = (
    "others name it, but it declares no port: its name resolves (a headless Service) to its pods, and "
    "nothing on the cluster says which ports they listen on"
)
DEPLOY_CARRIED = frozenset({"replicas", "resources", "restart_policy", "mode"})
# What a render for a cluster may write, counted before it is made (the largest corpus file starts
# 57 services and writes 40 ports): the written stream is held to the Compose render's size too
MOST_SERVICES = 500
MOST_PORTS = 2000


def convert(document, requirements, cluster):
    """(the objects, notes): `document` (the Compose file as Compose reads it) loaded as its
    services with what `requirements` (its measure) counted of each, then made for the `Cluster`;
    the caller writes the stream (`written`), once, with whatever goes before them."""
    doc, notes = cast(placeholders.as_unset(document), []), Notes()
    loaded = load(doc, requirements, notes)
    # a route whose port is not known, or whose rule no hold keeps, is its labels' alone
    routed = [route for route in requirements["routes"] if route["port"] is not None and not route.get("unheld")]
    return _Writer(doc, cluster, notes).objects(loaded, routed), notes


def load(doc, requirements, notes):
    """Each service of the project as a `Service`, once the file is within what a render for a
    cluster writes, another's name as a host written as that service's Service's name where it
    is renamed; the top-level elements with no counterpart named in `notes`."""
    resolved = services(doc, [])
    entries = {entry["name"]: entry for entry in requirements["perContainer"]}
    _bounded(resolved, entries)
    for key in sorted(set(doc) - TOP_LEVEL):
        if not str(key).startswith("x-"):
            notes.dropped([key], "a top-level element Kubernetes has no counterpart for")
    awaited = _awaited_to_complete(resolved)
    named = _named_by_others(resolved) - awaited
    renamed = {name: service_label(name) for name in resolved if service_label(name) != name}
    loaded = []
    for name, spec in resolved.items():
        spec = hosts_renamed(spec, renamed, ["services", name], notes)
        entry = entries.get(name)
        replicas = 1 if entry is None or entry["count"] == "unknown" else entry["count"]
        loaded.append(Service(name, spec, entry, replicas, name in awaited, name in named))
    return loaded


def _bounded(resolved, entries):
    """A 422 naming the bound a file's services or their ports (counted, not expanded) pass."""
    running = [service for service in resolved.values() if started(service)]
    if len(running) > MOST_SERVICES:
        raise Invalid(
            {"target": [f"{len(running)} services start: a render for a cluster holds at most {MOST_SERVICES}."]}
        )
    ports = sum(network.counted(service) for service in running)
    if ports > MOST_PORTS:
        raise Invalid(
            {"target": [f"The services listen on {ports} ports: a render for a cluster writes at most {MOST_PORTS}."]}
        )
    for name, entry in entries.items():
        if isinstance(entry["count"], int) and entry["count"] > INT32:
            raise Invalid(
                {
                    "target": [
                        f"services.{name}: {entry['count']} replicas; a Kubernetes workload holds at most {INT32}."
                    ]
                }
            )


class _Writer:
    """The objects of loaded services on a cluster: what they share (the claims and files mounted,
    the values Secret, the names given) and the notes."""

    def __init__(self, doc, cluster, notes):
        self.cluster, self.notes = cluster, notes
        self.labels = {INSTANCE: cluster.instance}
        self.storage = mounts.Storage(doc, cluster, self.labels, notes)
        self.secrets = pods.Secrets(cluster.instance, cluster.secret_texts)
        self.names = Names("Deployment or Job", service_label)
        self.routed = {}  # a routed service's Compose name -> the ports its routes add

    def objects(self, loaded, routes):
        """The values Secret, the files and claims, the Services, the workloads, what routes to
        them, then what may reach them."""
        for route in routes:
            self.routed.setdefault(route["service"], []).append(route["port"])
        made = {service.name: pair for service in loaded if (pair := self._service(service)) is not None}
        if not made:
            raise Invalid(
                {
                    "target": [
                        "Every service is in a Compose profile: `docker compose up` starts none, "
                        "and there is nothing to run on a cluster."
                    ]
                }
            )
        values_secret = []
        if self.secrets.data:
            named = metadata(label(self.cluster.instance), self.labels, self.cluster.namespace)
            values_secret = [{"apiVersion": "v1", "kind": "Secret", "metadata": named, "stringData": self.secrets.data}]
        named = {name: pair[0]["metadata"]["name"] for name, pair in made.items()}
        routed = ingress.objects(routes, named, self.cluster, self.labels, self.notes)
        services, workloads = [pair[0] for pair in made.values()], [pair[1] for pair in made.values()]
        for service in loaded:
            self._waits(service, made)
        on = {named[service.name]: isolation.networks_of(service.spec) for service in loaded if service.name in named}
        reached = {named[route["service"]] for route in routes if route["service"] in named} if routed else set()
        isolated = isolation.policies(on, reached, self.cluster, self.labels, NAME)
        return [*values_secret, *self.storage.objects(), *services, *workloads, *routed, *isolated]

    def _waits(self, service, made):
        """The service's pod waits for each started service it depends on (`order`)."""
        if service.name not in made:
            return
        waits = [
            order.wait_container(made[other][0], self.cluster, service.spec, other)
            for other in order.awaited(service.spec, service.where, self.notes)
            if other in made and made[other][1]["kind"] != "Job"
        ]
        if waits:
            made[service.name][1]["spec"]["template"]["spec"]["initContainers"] = waits

    def _service(self, service):
        """(its Service, its workload), or None for a service `docker compose up` does not start."""
        spec, where, notes = service.spec, service.where, self.notes
        if not started(spec):
            notes.dropped(where, "in a Compose profile: `docker compose up` starts it only when its profile is named")
            return None
        if "image" not in spec:
            raise Invalid(
                {"target": [f"{'.'.join(where)}: a service with `build` and no `image`: a cluster runs images."]}
            )
        if spec["image"] in ("", None):
            raise Invalid(
                {
                    "target": [
                        f"{'.'.join(where)}.image: empty, as Compose reads the variables in it when none is "
                        "set: a cluster runs images (declare them as parameters, or write the image)."
                    ]
                }
            )
        name = self.names.of(service.name, ".".join(where))
        _name_what_is_not_carried(spec, where, notes)
        selector = {NAME: name, INSTANCE: self.cluster.instance}
        listened = network.ports(spec, where, notes)
        routed = [(port, "TCP") for port in dict.fromkeys(self.routed.get(service.name, ()))]
        listened += [port for port in routed if port not in listened]
        if not listened and service.named:
            notes.approximated(where, NO_PORT)
        workload = self._workload(service, name, selector, listened)
        return network.service_object(name, selector, listened, self.cluster.namespace), workload

    def _workload(self, service, name, selector, listened):
        """The service's Deployment, or its Job where another waits for it to complete."""
        spec, where, notes = service.spec, service.where, self.notes
        volumes, volume_mounts, claimed = self.storage.mounts(spec, where, service.replicas)
        level = self.cluster.pod_security
        container = pods.container(name, spec, where, service.entry, listened, self.secrets, notes, level)
        if volume_mounts:
            container["volumeMounts"] = volume_mounts
        pod = {"containers": [container], **pods.pod(spec, where, notes)}
        if pull := self.cluster.conventions.get("imagePullSecrets"):
            pod["imagePullSecrets"] = [{"name": name} for name in pull]
        if volumes:
            pod["volumes"] = volumes
        template = {"metadata": {"labels": selector}, "spec": pod}
        if annotations := pods.annotations(spec, where, self.secrets, notes):
            template["metadata"]["annotations"] = annotations
        named = metadata(name, selector, self.cluster.namespace)
        if service.awaited:
            return _job(named, template, service.replicas, spec, where, notes)
        return _deployment(named, template, service.replicas, claimed, spec, where, notes)


def written(objects):
    """The objects as a YAML stream, every string a Kubernetes tool would read as another type quoted."""
    return yamlwriter.dump_all(objects)


def _named_by_others(resolved):
    """The services another names in `depends_on` (a list or a mapping) or `links`."""
    named = set()
    for service in resolved.values():
        depends = service.get("depends_on")
        named |= {str(one) for one in (depends if isinstance(depends, list) else mapping(depends))}
        named |= {str(one).partition(":")[0] for one in listed(service.get("links"))}
    return named


def _awaited_to_complete(resolved):
    """The services another waits for with `condition: service_completed_successfully`."""
    return {
        name
        for service in resolved.values()
        for name, condition in mapping(service.get("depends_on")).items()
        if mapping(condition).get("condition") == "service_completed_successfully"
    }


def _name_what_is_not_carried(service, where, notes):
    for key in service:
        if key in pods.CARRIED or str(key).startswith("x-"):
            continue
        notes.dropped([*where, key], WHY.get(key, "no Kubernetes counterpart"))
    deploy = mapping(service.get("deploy"))
    for key in sorted(set(deploy) - DEPLOY_CARRIED):
        notes.dropped([*where, "deploy", key], "a Swarm setting: the cluster's scheduler decides")
    if deploy.get("mode") not in (None, "replicated"):
        notes.approximated(
            [*where, "deploy", "mode"], f"{str(deploy['mode'])[:20]!r}: a Deployment of the replicas counted"
        )
    resources = mapping(deploy.get("resources"))
    for group in ("limits", "reservations"):
        for key in sorted(set(mapping(resources.get(group))) - {"memory", "cpus"}):
            notes.dropped([*where, "deploy", "resources", group, key], "no Kubernetes resource the profile counts")


def _restarts_always(service, where, notes):
    policy = mapping(mapping(service.get("deploy")).get("restart_policy"))
    restart = service.get("restart")
    if restart not in (None, "always", "unless-stopped"):
        notes.approximated([*where, "restart"], "a Deployment restarts its pods whenever they stop")
    if policy.get("condition") not in (None, "any"):
        notes.approximated([*where, "deploy", "restart_policy"], "a Deployment restarts its pods whenever they stop")
    for key in sorted(set(policy) - {"condition"}):
        notes.dropped([*where, "deploy", "restart_policy", key], "the kubelet's back-off decides")


def _deployment(metadata, template, replicas, claimed, service, where, notes):
    """A Deployment whose rollouts never run more pods than were counted."""
    _restarts_always(service, where, notes)
    strategy = (
        {"type": "Recreate"}
        if claimed
        else {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}
    )
    spec = {
        "replicas": replicas,
        "selector": {"matchLabels": metadata["labels"]},
        "strategy": strategy,
        "template": template,
    }
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata, "spec": spec}


def _job(metadata, template, replicas, service, where, notes):
    """A Job, for a service others wait for to complete."""
    restart = service.get("restart")
    template["spec"]["restartPolicy"] = "Never" if restart in (None, "no") else "OnFailure"
    if restart not in (None, "no", "on-failure"):
        notes.approximated([*where, "restart"], "a Job's pod is restarted only on failure")
    spec = {"parallelism": replicas, "completions": replicas, "template": template}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec}
