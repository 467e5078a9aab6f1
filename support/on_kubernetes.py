"""A render for Kubernetes judged against what Docker Compose starts: each service of Compose's
normalized project is a workload with its image, replicas, environment, ports and mounts; and
Kubernetes takes the stream: the API server's rules, and kubectl's decoding with its own types
where the machine has it."""

import shutil
import subprocess

from app.definitions import kubernetes, render
from app.definitions.on_kubernetes.model import Cluster
from app.definitions.on_kubernetes.names import label
from app.errors import Invalid
from app.model import quantities
from support import compose_oracle, yamls

COUNTED = ("memoryBytes", "cpuMillis", "containers")
# a team's profile as people write one: caps, and defaults for the containers that declare none
TEAM = {
    "name": "team",
    "memoryCap": "2Gi",
    "cpuCap": "2",
    "containerCap": "10",
    "containerDefaults": {"memory": "256Mi", "cpu": "0.25"},
}
LIMITS = quantities.limits(TEAM)


PLAIN = Cluster("oracle")


def rendered(text, limits=None):
    """(the Compose render, the render for Kubernetes, None) of the Compose file `text` with no
    value given, or (the Compose render, None, the problems of the 422 the conversion answers).
    The render for Kubernetes writes no object twice, which a render does not ask of itself."""
    version = {"yml": text, "blueprintType": "compose", "_id": "oracle"}
    compose_render = render.render(version, {}, limits)
    try:
        cluster = render.render(version, {}, limits, cluster=PLAIN)
    except Invalid as exc:
        return compose_render, None, exc.errors
    assert kubernetes.written_twice(yamls.documents(cluster["yml"])) == []
    return compose_render, cluster, None


def kinds(found, kind):
    return {one["metadata"]["name"]: one for one in found if one["kind"] == kind}


def taken_by_kubernetes(stream):
    """Whether Kubernetes takes every object of `stream`: nothing the API server's own rules refuse
    (`kubernetes.refused_by_the_api_server`, which a render for a cluster does not ask of the objects
    it built), and kubectl (`label --local`) decodes each, where the machine has kubectl."""
    for index, made in enumerate(yamls.documents(stream), start=1):
        assert kubernetes.refused_by_the_api_server(made, f"object {index}") == []
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return True
    done = subprocess.run(
        [kubectl, "label", "--local", "-f", "-", "checked=yes", "-o", "yaml"],
        input=stream.encode(),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[:2000]
    return True


def waits_beyond(stream):
    """{memoryBytes, cpuMillis}: what the pods of `stream` need beyond their containers because a
    wait container (limited to the profile's defaults, else 16Mi and 10m) asks more than they
    declare together: Kubernetes counts a pod at the larger of its largest init container and the
    sum of its containers, and so does the service."""
    beyond = {"memoryBytes": 0, "cpuMillis": 0}
    for one in yamls.documents(stream):
        spec = one.get("spec") or {}
        pod = (spec.get("template") or {}).get("spec") or {}
        for key, resource, read in (
            ("memoryBytes", "memory", quantities.kubernetes_bytes),
            ("cpuMillis", "cpu", quantities.kubernetes_millis),
        ):
            declared = [(c.get("resources") or {}).get("limits", {}).get(resource) for c in pod.get("containers", ())]
            waits = [(c.get("resources") or {}).get("limits", {}).get(resource) for c in pod.get("initContainers", ())]
            if waits and None not in declared + waits:
                pods = spec.get("replicas", spec.get("parallelism", 1))
                beyond[key] += pods * max(0, max(map(read, waits)) - sum(map(read, declared)))
    return beyond


def unfaithful(project, written, stream):
    """What differs between Compose's `project` (of the Compose file `written`, as YAML read it)
    and the workloads of `stream`, service by service: [] when each is carried over."""
    found, problems = yamls.documents(stream), []
    workloads = {**kinds(found, "Deployment"), **kinds(found, "Job")}
    services = kinds(found, "Service")
    if len(workloads) != len(project["services"]):
        return [f"{len(workloads)} workloads for {len(project['services'])} services"]
    by_name = {one["metadata"]["labels"]["app.kubernetes.io/name"]: one for one in workloads.values()}
    for name, service in project["services"].items():
        workload, own = by_name.get(label(name)), (written.get(name) or {})
        if workload is None or label(name) not in services:
            problems.append(f"{name}: no workload or no Service")
            continue
        (container,) = workload["spec"]["template"]["spec"]["containers"]
        if "$" not in str(own.get("image", "")) and container.get("image") != service.get("image"):
            problems.append(f"{name}: image {container.get('image')!r}, not {service.get('image')!r}")
        replicas = workload["spec"].get("replicas", workload["spec"].get("parallelism"))
        if replicas != service.get("deploy", {}).get("replicas", service.get("scale", 1)):
            problems.append(f"{name}: {replicas} replicas")
        env = {one["name"] for one in container.get("env", [])}
        given = {key for key, value in (service.get("environment") or {}).items() if value is not None}
        if missing := given - _from_the_shell(own.get("environment")) - env:
            problems.append(f"{name}: no {sorted(missing)}")
        ports = {(one["containerPort"], one["protocol"]) for one in container.get("ports", [])}
        declared = {(int(one["target"]), one.get("protocol", "tcp").upper()) for one in service.get("ports", [])}
        if missing := declared - ports:
            problems.append(f"{name}: no ports {sorted(missing)}")
        mounted = {one["mountPath"] for one in container.get("volumeMounts", [])}
        if missing := {one["target"] for one in service.get("volumes", [])} - mounted:
            problems.append(f"{name}: nothing mounted at {sorted(missing)}")
    return problems


def _from_the_shell(environment):
    """The variables a Compose file lists without a value: the shell's, which a render has not."""
    if isinstance(environment, dict):
        return {key for key, value in environment.items() if value is None}
    return {one for one in environment or () if isinstance(one, str) and "=" not in one}


def bounded_file(services, variables, labels=0):
    """A Compose file near what a render for a cluster may write: `services` services (500 at
    most) listening on 4 ports each (2,000 in all at 500), an aliased environment of `variables`
    values and `labels` labels each. 500 and 4 write 834 KiB from 41 KB; 500, 10 and 10, past
    1 MiB."""
    anchor = "x-env: &env\n" + "".join(f"  V{k}: '{'v' * 40}'\n" for k in range(variables))
    return (
        anchor
        + "services:\n"
        + "".join(
            f"  s{i}:\n    image: r.example/app:1\n    expose: ['{4 * i}-{4 * i + 3}']\n    environment: *env\n"
            + (f"    labels: {{{', '.join(f'l{k}: x' for k in range(labels))}}}\n" if labels else "")
            for i in range(services)
        )
    )


def converted_as_run(text):
    """`converted` for a corpus file, and the parameters it was rendered with: none where it can
    be; where an image is empty with its variables unset (a 422), those variables declared at the
    values a user's .env gives (compose_oracle.values_for), as the refusal tells its author to."""
    try:
        return (*converted(text), None)
    except Invalid as exc:
        if "empty, as Compose reads the variables in it" not in str(exc.errors.get("target")):
            raise
    values = compose_oracle.values_for(text)
    parameters = {
        "type": "object",
        "properties": {name: {"type": "string", "default": value} for name, value in values.items()},
    }
    return (*converted(text, parameters=parameters), parameters)


def converted(text, values=None, parameters=None, limits=LIMITS, **options):
    """(the Compose render, the render for Kubernetes, its objects) of `text` with `values`, for a
    cluster of `options` (Cluster's fields), fitted to `limits`."""
    version = {"yml": text, "blueprintType": "compose", "parameters": parameters, "_id": "shop"}
    compose_render = render.render(version, values or {}, limits)
    answer = render.render(version, values or {}, limits, cluster=Cluster("shop", **options))
    return compose_render, answer, yamls.documents(answer["yml"])
