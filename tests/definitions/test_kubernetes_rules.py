"""What the API server refuses beyond a kind's schema (app/definitions/kubernetes_rules.py and
kubernetes_pods.py): each slip refused at its place, what Kubernetes takes accepted, a value a
variable decides judged once it is set, and a Compose service whose name starts with a digit
converted to a Service that starts with a letter."""

import shutil
import subprocess

import pytest

from app import definitions
from app.errors import Invalid
from app.joins import gitops
from support import on_kubernetes, yamls

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: NAME, labels: LABELS}
spec:
  selector: SELECTOR
  template:
    metadata: {labels: {app: web, tier: front}}
    spec:
      containers: CONTAINERS
"""
WEB = "[{name: web, image: nginx}]"


JOB = (
    "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\n"
    "spec: {{template: {{spec: {{{}containers: [{{name: a, image: b}}]}}}}}}"
)
JOB_SELECTING = (
    "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j}}\nspec: {{{}template: {{metadata: {{labels: {{app: j}}}}, "
    "spec: {{restartPolicy: Never, containers: [{{name: a, image: b}}]}}}}}}"
)
CRONJOB = (
    "apiVersion: batch/v1\nkind: CronJob\nmetadata: {{name: c}}\nspec:\n  schedule: {}\n"
    "  jobTemplate: {{spec: {{template: {{spec: {{restartPolicy: Never, containers: [{{name: c, image: x}}]}}}}}}}}"
)
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata: {}"
SERVICE = "apiVersion: v1\nkind: Service\nmetadata: {{name: s}}\nspec: {{selector: {{app: web}}, ports: {}}}"


def web(fields="", *volumes):
    """A pod's one container, `web`, with `fields` (a flow mapping's entries), and, where named,
    the pod's `volumes` (emptyDirs): what follows `containers:` in DEPLOYMENT."""
    containers = f"[{{name: web, image: nginx{', ' if fields else ''}{fields}}}]"
    if not volumes:
        return containers
    return containers + f"\n      volumes: [{', '.join(f'{{name: {one}, emptyDir: {{}}}}' for one in volumes)}]"


def deployment(name="web", labels="{}", selector="{matchLabels: {app: web}}", containers=WEB):
    return (
        DEPLOYMENT.replace("NAME", name)
        .replace("LABELS", labels)
        .replace("SELECTOR", selector)
        .replace("CONTAINERS", containers)
    )


def refusal(text):
    with pytest.raises(Invalid) as info:
        definitions.requirements("kubernetes", text)
    return info.value.errors["yml"]


@pytest.mark.parametrize(
    "text, said",
    [
        (deployment(name="My_App"), "Deployment/My_App: metadata.name: 'My_App' is not a DNS subdomain"),
        (deployment(name="a" * 254), "is longer than a DNS subdomain may be (253 characters)"),
        ("apiVersion: v1\nkind: Service\nmetadata: {name: 2fa}\nspec: {ports: [{port: 80}]}", "not a DNS-1035 label"),
        (
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: team.a}",
            "Namespace/team.a: metadata.name: 'team.a' is not a DNS label",
        ),
        (
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: " + "c" * 53 + "}\nspec:\n  schedule: '* * * * *'\n"
            "  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}}}",
            "longer than a CronJob's name may be (52 characters)",
        ),
        (deployment(labels="{'my app': x}"), "metadata.labels.my app: Kubernetes reads no such key: its name 'my app'"),
        (deployment(labels="{'Example.com/a': x}"), "its prefix 'Example.com' is not a DNS subdomain"),
        (deployment(labels="{a: 'two words'}"), "metadata.labels.a: 'two words' is not a label value"),
        (deployment(labels="{a: " + "v" * 64 + "}"), "is longer than a label value may be (63 characters)"),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, annotations: {'a b': x}}",
            "annotations.a b: Kubernetes reads no such key",
        ),
        (deployment(selector="{matchLabels: {app: api}}"), "Deployment/web: spec.selector: does not select the pods"),
        (deployment(selector="{matchExpressions: [{key: tier, operator: NotIn, values: [front]}]}"), "does not select"),
        (deployment(selector="{matchExpressions: [{key: app, operator: DoesNotExist}]}"), "does not select"),
        (
            deployment(
                containers="[{name: a, image: x, ports: [{containerPort: 80, hostPort: 8080}]}, "
                "{name: b, image: redis, ports: [{containerPort: 81, hostPort: 8080, protocol: TCP}]}]"
            ),
            "containers.1.ports.0.hostPort: spec.template.spec.containers.0.ports.0 takes the host's port 8080 (TCP)",
        ),
        (
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {password: hunter2!}",
            "Secret/s: data.password: the value is not base64, which Kubernetes reads data in (text goes in "
            "stringData).",
        ),
        (
            CONFIG_MAP.format("{a: plain text}") + "\nbinaryData: {b: 'aGk'}",
            "ConfigMap/c: binaryData.b: the value is not base64",
        ),
        (
            SERVICE.format("[{port: 80, protocol: tcp}]"),
            "Service/s: spec.ports.0.protocol: 'tcp' is none of those Kubernetes takes: TCP, UDP, SCTP.",
        ),
        (
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: nodeport, ports: [{port: 80}]}",
            "spec.type: 'nodeport' is none of those Kubernetes takes: ClusterIP, NodePort, LoadBalancer, ExternalName.",
        ),
        (
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: ExternalName}",
            "Service/s: spec.externalName: an ExternalName Service names the host it stands for",
        ),
        (
            deployment(containers=web("imagePullPolicy: always, ports: [{containerPort: 80, protocol: Tcp}]")),
            "containers.0.imagePullPolicy: 'always' is none of those Kubernetes takes: Always, IfNotPresent, Never.",
        ),
        (
            deployment(containers=web("imagePullPolicy: always, ports: [{containerPort: 80, protocol: Tcp}]")),
            "containers.0.ports.0.protocol: 'Tcp' is none of those Kubernetes takes",
        ),
        (
            "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: d}\n"
            "spec: {accessModes: [ReadWriteOnly], resources: {requests: {storage: 1Gi}}}",
            "PersistentVolumeClaim/d: spec.accessModes.0: 'ReadWriteOnly' is none of those Kubernetes takes",
        ),
        (
            "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}\nspec: {rules: [{http: {paths: "
            "[{path: api, pathType: Prefix, backend: {service: {name: s, port: {number: 80}}}}]}}]}",
            "Ingress/i: spec.rules.0.http.paths.0.path: 'api' is not absolute (starting with '/')",
        ),
        (
            CRONJOB.format("'0 0 0 * * *'"),
            "CronJob/c: spec.schedule: 6 fields; a schedule has five (minute, hour, day of month, month, day of week).",
        ),
        (CRONJOB.format("'@often'"), "spec.schedule: '@often' is none of @yearly, @annually"),
        (CRONJOB.format("'@daily at noon'"), "spec.schedule: '@daily' is none of"),
        (CRONJOB.format("'CRON_TZ=UTC 0 0 * * *'"), "spec.schedule: a time zone goes in spec.timeZone"),
        (
            SERVICE.format("[{port: 80, nodePort: 30080}]"),
            "Service/s: spec.ports.0.nodePort: a ClusterIP Service has none, as Kubernetes requires.",
        ),
        (
            deployment().replace(
                "spec:\n  selector:", "spec:\n  strategy: {type: Recreate, rollingUpdate: {}}\n  selector:"
            ),
            "Deployment/web: spec.strategy.rollingUpdate: a Recreate strategy takes no rollingUpdate",
        ),
        (
            deployment(containers=web("livenessProbe: {exec: {command: [x]}, httpGet: {port: 80}}")),
            "containers.0.livenessProbe: does exec and httpGet: a probe does one of exec, httpGet, tcpSocket, grpc",
        ),
        (
            deployment(containers=web("readinessProbe: {periodSeconds: 5}")),
            "containers.0.readinessProbe: does nothing: a probe does one of",
        ),
        (
            deployment(containers=web("startupProbe: {tcpSocket: {port: 80}, successThreshold: 3}")),
            "containers.0.startupProbe.successThreshold: 3: a startupProbe succeeds once (1).",
        ),
        (
            deployment(containers=web("lifecycle: {preStop: {}}")),
            "lifecycle.preStop: does nothing: a hook does one of exec, httpGet, tcpSocket, sleep",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {volumes: [{name: v, emptyDir: {}, "
            "configMap: {name: c}}], containers: [{name: a, image: x}]}",
            "Pod/p: spec.volumes.0: emptyDir and configMap: a volume is one of them",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}",
            "Pod/p: spec.containers: a pod runs a container at least, as Kubernetes requires.",
        ),
        (
            deployment(containers="[{name: web}]"),
            "spec.template.spec.containers.0.image: a container names its image, as Kubernetes requires.",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: ' nginx'}]}",
            "Pod/p: spec.containers.0.image: ' nginx' has spaces around it, which Kubernetes refuses in a Pod.",
        ),
        (
            deployment(containers=web("resources: {requests: {memory: 512Mi}, limits: {memory: 256Mi}}")),
            "containers.0.resources.requests.memory: 512Mi is more than its limit, 256Mi, which Kubernetes refuses.",
        ),
        (
            deployment(containers=web("resources: {requests: {cpu: 2}, limits: {cpu: 500m}}")),
            "requests.cpu: 2 is more than its limit, 500m",
        ),
        (
            deployment(containers=web("resources: {requests: {nvidia.com/gpu: 1}}")),
            "requests.nvidia.com/gpu: nvidia.com/gpu cannot be overcommitted: its limit is given",
        ),
        (
            deployment(containers=web("resources: {requests: {example.com/fpga: 1}, limits: {example.com/fpga: 2}}")),
            "requests.example.com/fpga: 1 is not its limit, 2: example.com/fpga cannot be overcommitted.",
        ),
        (
            deployment(containers=web("resources: {limits: {hugepages-2Mi: 4Mi}}")),
            "containers.0.resources: huge pages are asked for with cpu or memory",
        ),
        (
            deployment(containers=web("readinessProbe: {httpGet: {path: /, port: '8080'}}")),
            "containers.0.readinessProbe.httpGet.port: '8080' is not a port name",
        ),
        (
            deployment(containers=web("lifecycle: {preStop: {tcpSocket: {port: 0}}}")),
            "containers.0.lifecycle.preStop.tcpSocket.port: 0 is no port number (1-65535)",
        ),
        (
            deployment(containers=web("livenessProbe: {grpc: {port: 70000}}")),
            "containers.0.livenessProbe.grpc.port: 70000 is no port number",
        ),
        (
            deployment(selector="{matchLabels: {app: web}, matchExpressions: [{key: 'my tier', operator: Exists}]}"),
            "spec.selector.matchExpressions.0.key: Kubernetes reads no such key: its name 'my tier'",
        ),
        (
            deployment(
                selector="{matchLabels: {app: web}, matchExpressions: [{key: t, operator: Equals, values: [a]}]}"
            ),
            "matchExpressions.0.operator: 'Equals' is none of In, NotIn, Exists, DoesNotExist.",
        ),
        (
            deployment(selector="{matchLabels: {app: web}, matchExpressions: [{key: tier, operator: NotIn}]}"),
            "matchExpressions.0.values: NotIn takes some values, as Kubernetes requires.",
        ),
        (
            deployment(selector="{matchExpressions: [{key: app, operator: Exists, values: [web]}]}"),
            "matchExpressions.0.values: Exists takes no values, as Kubernetes requires.",
        ),
        (
            deployment(
                selector="{matchLabels: {app: web}, matchExpressions: [{key: t, operator: NotIn, values: ['a b']}]}"
            ),
            "matchExpressions.0.values.0: 'a b' is not a label value",
        ),
        (deployment(selector="{}"), "spec.selector: an empty selector selects every pod"),
        (SERVICE.format("[{port: 80}]").replace("app: web", "'my app': web"), "spec.selector.my app: Kubernetes reads"),
        (deployment(selector="{matchLabels: {app: 'web site'}}"), "spec.selector.matchLabels.app: 'web site' is no"),
        (deployment(containers="[{name: Web, image: x}]"), "containers.0.name: 'Web' is not a DNS label"),
        (
            deployment(containers="[{name: web, image: nginx}, {name: web, image: redis}]"),
            "spec.template.spec.containers.1.name: another container of the pod is named 'web'",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers: [{name: a, image: busybox}]\n"
            "  containers: [{name: a, image: nginx}]",
            "Pod/p: spec.containers.0.name: another container of the pod is named 'a'",
        ),
        (
            "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, labels: {a: 'b c'}}",
            "Widget/w: metadata.labels.a: 'b c' is not a label value",
        ),
        (deployment(containers=web("ports: [{name: http-alternative, containerPort: 80}]")), "longer than a port name"),
        (deployment(containers=web("ports: [{name: '8080', containerPort: 80}]")), "'8080' is not a port name"),
        (deployment(containers=web("ports: [{name: http--x, containerPort: 80}]")), "0.name: 'http--x' is not a port"),
        (
            deployment(containers=web("ports: [{name: http, containerPort: 80}, {name: http, containerPort: 81}]")),
            "containers.0.ports.1.name: another port of the container is named 'http'",
        ),
        (deployment(containers=web("ports: [{containerPort: 0}]")), "ports.0.containerPort: 0 is no port number"),
        (deployment(containers=web("ports: [{containerPort: 80, hostPort: 80800}]")), "hostPort: 80800 is no port"),
        (
            deployment(containers=web("volumeMounts: [{name: data, mountPath: /data}]")),
            "spec.template.spec.containers.0.volumeMounts.0.name: no volume of the pod is named 'data'",
        ),
        (
            deployment(containers=web("volumeMounts: [{name: a, mountPath: /d}, {name: b, mountPath: /d}]", "a", "b")),
            "volumeMounts.1.mountPath: another mount of the container is at '/d'",
        ),
        (deployment(containers=web("env: [{name: 'A=B', value: x}]")), "env.0.name: 'A=B' is no environment"),
        (deployment(containers=web("env: [{name: 'café', value: x}]")), "env.0.name: 'café' is no environment"),
        (deployment(containers=web("", "cache", "cache")), "spec.volumes.1.name: another volume of the pod is named"),
        (deployment(containers=web("", "Cache")), "spec.template.spec.volumes.0.name: 'Cache' is not a DNS label"),
        (SERVICE.format("[{port: 80}, {port: 443}]"), "Service/s: spec.ports.0.name: a Service of several ports names"),
        (SERVICE.format("[{name: a, port: 80}, {name: a, port: 443}]"), "1.name: another port of the Service is named"),
        (SERVICE.format("[{name: Web, port: 80}]"), "spec.ports.0.name: 'Web' is not a DNS label"),
        (SERVICE.format("[{port: 65536}]"), "spec.ports.0.port: 65536 is no port number (1-65535)"),
        (SERVICE.format("[{port: 80, targetPort: web_http}]"), "targetPort: 'web_http' is not a port name"),
        (JOB.format(""), "Job/j: spec.template.spec.restartPolicy: none given (a pod's default is Always)"),
        (JOB.format("restartPolicy: Always, "), "restartPolicy: 'Always': a Job's pods end, OnFailure or Never"),
        (
            JOB_SELECTING.format("selector: {matchLabels: {app: j}}, "),
            "Job/j: spec.selector: Kubernetes makes a Job's selector and refuses one given, unless manualSelector",
        ),
        (
            JOB_SELECTING.format("manualSelector: true, "),
            "Job/j: spec.selector: with manualSelector true, a Job's selector is given",
        ),
        (
            JOB_SELECTING.format("manualSelector: true, selector: {matchLabels: {app: other}}, "),
            "Job/j: spec.selector: does not select the pods of its template",
        ),
        (
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '@daily'\n"
            "  jobTemplate: {spec: {selector: {matchLabels: {app: c}}, template: {metadata: {labels: {app: c}}, "
            "spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}}}",
            "CronJob/c: spec.jobTemplate.spec.selector: Kubernetes makes its Jobs' selector and refuses one given",
        ),
        (
            deployment(containers=web() + "\n      restartPolicy: OnFailure"),
            "restartPolicy: 'OnFailure': a Deployment's pods run until replaced, Always",
        ),
        (
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: team/reader}",
            "Role/team/reader: metadata.name: 'team/reader' is not a path segment (any text but '.' and '..', without "
            "'/' or '%'), which Kubernetes requires of a Role's name.",
        ),
        (
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: '..'}"
            "\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}",
            "'..' is not",
        ),
        (
            CRONJOB.format("'0 0 * * 7'"),
            "CronJob/c: spec.schedule: its day of week '7' is not a range within 0-6, which Kubernetes refuses.",
        ),
        (CRONJOB.format("'*/0 * * * *'"), "its minute '*/0' has no step of a whole number above 0"),
        (CRONJOB.format("'0 24 * * *'"), "its hour '24' is not a range within 0-23"),
        (CRONJOB.format("'0 0 0 * *'"), "its day of month '0' is not a range within 1-31"),
        (CRONJOB.format("'0 0 1 JANUARY *'"), "its month 'JANUARY' is no number nor name"),
        (CRONJOB.format("'0 0 * * MON-FRI/2/3'"), "its day of week 'MON-FRI/2/3' has more than one '/'"),
        (CRONJOB.format("'0 9-17-1 * * *'"), "its hour '9-17-1' has more than one '-'"),
        (CRONJOB.format("'0 17-9 * * *'"), "its hour '17-9' is not a range within 0-23"),
        (CRONJOB.format("'0 0 * * 1/" + "9" * 5000 + "'"), "its day of week '1/999999999999999999' has no step"),
        (CRONJOB.format("'0 0 * * 1/9223372036854775808'"), "has no step of a whole number"),  # past Go's int64
        (
            deployment(containers=web("lifecycle: {preStop: {sleep: {seconds: 60}}}")),
            "lifecycle.preStop.sleep.seconds: 60: a hook sleeps from 0 seconds to the pod's "
            "terminationGracePeriodSeconds (30), as Kubernetes requires.",
        ),
        (
            deployment(containers=web("readinessProbe: {tcpSocket: {port: 80}, periodSeconds: -10}")),
            "readinessProbe.periodSeconds: -10 is below 0, which Kubernetes refuses.",
        ),
        (
            deployment(containers=web("livenessProbe: {tcpSocket: {port: 80}, terminationGracePeriodSeconds: 0}")),
            "livenessProbe.terminationGracePeriodSeconds: 0: a probe's grace period is above 0",
        ),
        (
            deployment(containers=web("lifecycle: {postStart: {sleep: {seconds: -1}}}")),
            "lifecycle.postStart.sleep.seconds: -1: a hook sleeps from 0 seconds",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: nginx}]\n"
            "  initContainers: [{name: i, image: busybox, readinessProbe: {exec: {command: [x]}}}]",
            "Pod/p: spec.initContainers.0.readinessProbe: an init container has none unless its restartPolicy is "
            "Always (a sidecar), as Kubernetes requires.",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: nginx}]\n"
            "  initContainers: [{name: i, image: busybox, restartPolicy: Never, lifecycle: {postStart: {exec: "
            "{command: [x]}}}}]",
            "Pod/p: spec.initContainers.0.lifecycle: an init container has none unless",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: nginx}]\n"
            "  initContainers: [{name: i, image: busybox, ports: [{containerPort: 1, hostPort: 80}, "
            "{containerPort: 2, hostPort: 80}]}]",
            "Pod/p: spec.initContainers.0.ports.1.hostPort: spec.initContainers.0.ports.0 takes the host's port 80",
        ),
        (CONFIG_MAP.format("{conf.d/app.conf: v1}"), "ConfigMap/c: data.conf.d/app.conf: Kubernetes reads no such key"),
        (CONFIG_MAP.format("{'..data': v1}"), "data...data: Kubernetes reads no such key"),
        (CONFIG_MAP.format("{a: v1}\nbinaryData: {a: eA==}"), "binaryData.a: the key is also in data"),
        (
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {'my password': v1}",
            "Secret/s: stringData.my password: Kubernetes reads no such key",
        ),
    ],
)
def test_what_the_api_server_refuses_is_refused_at_its_place(text, said):
    problems = refusal(text)
    assert any(said in problem for problem in problems), problems


@pytest.mark.parametrize(
    "text",
    [
        deployment(name="web.example-1", labels="{app.kubernetes.io/name: web, empty: '', a_b.c: A-1_b.2}"),
        deployment(
            selector="{matchLabels: {app: web}, matchExpressions: [{key: tier, operator: In, values: [front]}]}"
        ),
        deployment(selector="{matchExpressions: [{key: app, operator: Exists}, {key: x, operator: DoesNotExist}]}"),
        deployment(selector="{matchExpressions: [{key: example.com/x, operator: NotIn, values: ['', a.b_C-1]}]}"),
        "apiVersion: v1\nkind: Service\nmetadata: {name: a-1}\nspec: {ports: [{port: 80}]}",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 1.settings, annotations: {example.com/a: 'any text'}}",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: 'system:reader'}",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: Any_Name}",
        deployment(
            containers=web("ports: [{name: h2c, containerPort: 80, hostPort: 0}, {name: m-1, containerPort: 9}]")
        ),
        deployment(containers=web("volumeMounts: [{name: a, mountPath: /d}, {name: a, mountPath: /e}]", "a")),
        deployment(containers=web("env: [{name: my.setting, value: x}, {name: 'a b', value: z}]")),  # relaxed
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: aGk=, b: '', c: \"aGVs\\nbG8=\"}",
        CONFIG_MAP.format("{a: 'any text, not base64!'}"),
        deployment(containers="[{name: web, image: ' '}]"),  # OpenShift's image triggers fill a template's
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: ExternalName, externalName: db.example.com}",
        SERVICE.format("[{port: 80, protocol: UDP}]"),
        CRONJOB.format("'*/5 1-3 * JAN-MAR SUN'"),
        CRONJOB.format("'@hourly'"),
        CRONJOB.format("'@every 90m'"),
        CRONJOB.format("'5/15 0,12 1-31/2 jan-Dec sat'"),  # a lone value with a step runs to the field's end
        CRONJOB.format("'?,, +0 * *-1-2 */0000000000000000000000007'"),  # robfig/cron reads these too
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: 'My Binding.x'}"
        "\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}",
        deployment(containers=web("lifecycle: {preStop: {sleep: {seconds: 0}}}")),
        deployment(
            containers=web(
                "livenessProbe: {tcpSocket: {port: 80}, successThreshold: 0, timeoutSeconds: 0, "
                "terminationGracePeriodSeconds: 5}"
            )
        ),  # 0 stands for the default
        deployment(
            containers=web("lifecycle: {preStop: {sleep: {seconds: 90}}}") + "\n      terminationGracePeriodSeconds: 90"
        ),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
        "  containers: [{name: a, image: nginx, ports: [{containerPort: 80, hostPort: 80}]}]\n"
        "  initContainers: [{name: i, image: busybox, ports: [{containerPort: 1, hostPort: 80}]}, "
        "{name: j, image: busybox, ports: [{containerPort: 1, hostPort: 80}]}, "
        "{name: sidecar, image: envoy, restartPolicy: Always, readinessProbe: {tcpSocket: {port: 9901}}, "
        "lifecycle: {preStop: {sleep: {seconds: 5}}}}]",  # init containers run one at a time, each apart
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
        "spec: {type: NodePort, ports: [{port: 80, nodePort: 30080}]}",
        deployment(
            containers=web(
                "readinessProbe: {httpGet: {port: 80}, successThreshold: 2}, "
                "lifecycle: {preStop: {sleep: {seconds: 5}}}"
            )
        ),
        deployment(containers=web("imagePullPolicy: IfNotPresent, terminationMessagePolicy: ''")),  # '': default
        deployment(
            containers=web(
                "resources: {requests: {cpu: 500m, memory: 128Mi, nvidia.com/gpu: 1, hugepages-2Mi: 4Mi}, "
                "limits: {cpu: '0.5', memory: 1Gi, nvidia.com/gpu: 1, hugepages-2Mi: 4Mi}}"
            )
        ),  # a request equal to its limit however written, or below it
        deployment(containers=web("resources: {limits: {nvidia.com/gpu: 2, kubernetes.io/x: 1}}")),
        deployment(
            containers="[{name: a, image: x, ports: [{containerPort: 80, hostPort: 8080}]}, {name: b, image: redis, "
            "ports: [{containerPort: 80, hostPort: 8080, protocol: UDP}, {containerPort: 81, hostPort: 0}, "
            "{containerPort: 82, hostPort: 0}]}]"
        ),  # another protocol; 0 is no host port
        deployment(
            containers=web(
                "ports: [{name: http, containerPort: 80}], livenessProbe: {httpGet: {port: http}}, "
                "startupProbe: {tcpSocket: {port: 80}}, readinessProbe: {exec: {command: [x]}}"
            )
        ),
        deployment(
            containers="[{name: a, image: x, ports: [{name: http, containerPort: 80}]}, {name: b, image: redis, "
            "ports: [{name: http, containerPort: 81}]}]"
        ),  # a port's name is the container's own
        SERVICE.format("[{name: http, port: 80, targetPort: http}, {name: https, port: 443, targetPort: 0}]"),
        SERVICE.format("[{port: 80}]"),  # one port needs no name
        JOB.format("restartPolicy: OnFailure, "),
        JOB_SELECTING.format("manualSelector: true, selector: {matchLabels: {app: j}}, "),
        JOB_SELECTING.format("manualSelector: false, "),
        deployment(containers=web() + "\n      restartPolicy: Always"),
        CONFIG_MAP.format("{.env: v1, nginx.conf: v2, app-settings_1.json: v3}\nbinaryData: {logo.png: eA==}"),
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: eA==}\nstringData: {a: v1}",  # it overrides
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  serviceName: db\n"
        "  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n"
        "      containers: [{name: db, image: postgres, volumeMounts: [{name: data, mountPath: /var/lib/pg}]}]\n"
        "  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce]}}]",
    ],
)
def test_what_kubernetes_takes_is_accepted(text):
    assert definitions.requirements("kubernetes", text)


def test_a_pods_own_labels_are_named_once():
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {a: 'b c'}}\nspec: {containers: [{name: a, image: x}]}"
    )
    assert refusal(text) == [
        "Pod/p: metadata.labels.a: 'b c' is not a label value (letters, digits, '-', '_' and '.', starting and "
        "ending with a letter or digit; or empty)."
    ]


def test_a_long_key_is_named_shortened():
    long = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    ? 'PREFIX/x'\n    : v\n"
    [problem] = refusal(long.replace("PREFIX", "A" * 100_000))
    assert len(problem) < 300 and "AAAA…: Kubernetes reads no such key: its prefix 'AAAA" in problem


def test_a_value_a_variable_without_a_default_decides_is_judged_once_set():
    text = deployment(name="'${NAME}'", labels="{team: '${TEAM}'}", selector="{matchLabels: {app: '${APP}'}}")
    assert definitions.requirements("kubernetes", text)  # nothing known to refuse
    assert "is not a DNS subdomain" in str(refusal(deployment(name="'${NAME:-My_App}'")))


def test_a_compose_service_named_from_a_digit_is_a_service_starting_with_a_letter_its_hosts_rewritten():
    text = "services:\n  2fa:\n    image: nginx\n    ports: ['80:80']\n  web:\n    image: redis\n    environment: [AUTH=http://2fa:80]\n"
    _, cluster, refused = on_kubernetes.rendered(text)
    assert refused is None, refused
    assert on_kubernetes.taken_by_kubernetes(cluster["yml"])
    objects = {(one["kind"], one["metadata"]["name"]): one for one in yamls.documents(cluster["yml"])}
    assert ("Service", "x-2fa") in objects and ("Deployment", "x-2fa") in objects
    web = objects[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "AUTH", "value": "http://x-2fa:80"} in web["env"]


def test_an_object_written_twice_is_refused_as_the_kustomize_of_a_git_environment_refuses_its_folder(tmp_path):
    """Two ConfigMaps `settings` (the second as a namespace names it: an instance's objects share
    its namespace): refused at the second. kubectl's kustomize refuses the folder a git
    environment would hold for them, which would stop the build of every instance beside it."""
    stream = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: v1}\n"
    elsewhere = stream.replace("{name: settings}", "{name: settings, namespace: team-a}")
    assert refusal(stream + "---\n" + elsewhere) == [
        "ConfigMap/settings: document 2 writes it again (the first is document 1); in an instance's namespace "
        "Kubernetes holds one ConfigMap of a name."
    ]
    secret = stream.replace("kind: ConfigMap", "kind: Secret").replace("\ndata:", "\nstringData:")
    assert definitions.requirements("kubernetes", stream + "---\n" + secret)  # another kind, another object
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return
    for name, text in gitops.files_of(stream + "---\n" + stream).items():
        (tmp_path / name).write_text(text)
    built = subprocess.run([kubectl, "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert built.returncode != 0 and "already registered id" in built.stderr


def test_a_secrets_value_that_is_not_base64_is_never_shown():
    problems = refusal("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {password: 'correct horse!'}")
    assert len(problems) == 1 and "data.password" in problems[0] and "horse" not in problems[0]
