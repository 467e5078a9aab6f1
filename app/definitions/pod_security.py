"""Kubernetes' Pod Security Standards (release VERSION), control by control, as the Standards'
table reads them: a pod spec as written (`of_pod`), and a Compose service as what its target runs
(`of_service`: Docker runs everything the file says; a conversion carries only some of it). Each
finding is `{path, control, level}`, `level` the lowest level it breaks (baseline breaks
restricted too); `violations` keeps those a profile's level refuses. Why each Compose key reads
as it does: docs/on-kubernetes.md, "Pod security"."""

from app.definitions.compose_load import LoadError, parse_volume
from app.definitions.schemas import listed, mapping

VERSION = "v1.37"  # the Standards as Kubernetes 1.37 defines them (the schemas' release)
LEVELS = ("privileged", "baseline", "restricted")
BASELINE, RESTRICTED = "baseline", "restricted"
MOST_FINDINGS = 200  # per target: a file of 10,000 privileged services needs no more to be refused
BASELINE_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
    }
)
SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"})
RESTRICTED_VOLUMES = frozenset(
    {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"}
)
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"


def violations(findings, level):
    """The findings a profile at `level` refuses, as `{path, control}`."""
    refused = {"privileged": (), BASELINE: (BASELINE,), RESTRICTED: (BASELINE, RESTRICTED)}[level]
    return [{"path": one["path"], "control": one["control"]} for one in findings if one["level"] in refused]


class _Found(list):
    def add(self, path, control, level=BASELINE):
        if len(self) < MOST_FINDINGS:
            self.append({"path": ".".join(map(str, path)), "control": control, "level": level})


def of_pod(spec, where, annotations=None):
    """The findings of a pod spec (a mapping as Kubernetes reads it) at `where`, a path list; its
    template's `annotations` carry the legacy AppArmor profiles."""
    found, spec = _Found(), mapping(spec)
    pod = mapping(spec.get("securityContext"))
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(field) is True:
            found.add([*where, field], "Host Namespaces")
    for index, volume in enumerate(listed(spec.get("volumes"))):
        sources = set(mapping(volume)) - {"name"}
        if "hostPath" in sources:
            found.add([*where, "volumes", index, "hostPath"], "HostPath Volumes")
        elif sources - RESTRICTED_VOLUMES:
            found.add([*where, "volumes", index, sorted(sources - RESTRICTED_VOLUMES)[0]], "Volume Types", RESTRICTED)
    for index, sysctl in enumerate(listed(pod.get("sysctls"))):
        if mapping(sysctl).get("name") not in SAFE_SYSCTLS:
            found.add([*where, "securityContext", "sysctls", index], "Sysctls")
    _context(pod, [*where, "securityContext"], found)
    for key, value in mapping(annotations).items():
        if (
            str(key).startswith(APPARMOR_ANNOTATION)
            and value not in ("runtime/default", "")
            and not str(value).startswith("localhost/")
        ):
            found.add([*where[:-1], "metadata", "annotations", key], "AppArmor")
    containers = [(field, i, mapping(c)) for field in CONTAINER_LISTS for i, c in enumerate(listed(spec.get(field)))]
    for field, index, container in containers:
        _container(container, [*where, field, index], found)
    _non_root(pod, containers, where, found)
    _seccomp(pod, containers, where, found)
    return found


def _container(container, at, found):
    """The findings of one container (of any of a pod's lists) at `at`."""
    context = mapping(container.get("securityContext"))
    _context(context, [*at, "securityContext"], found)
    if context.get("privileged") is True:
        found.add([*at, "securityContext", "privileged"], "Privileged Containers")
    if context.get("allowPrivilegeEscalation") is not False:
        found.add([*at, "securityContext", "allowPrivilegeEscalation"], "Privilege Escalation", RESTRICTED)
    if context.get("procMount") not in (None, "Default"):
        found.add([*at, "securityContext", "procMount"], "/proc Mount Type")
    capabilities = mapping(context.get("capabilities"))
    _capabilities(listed(capabilities.get("add")), [*at, "securityContext", "capabilities", "add"], found)
    if "ALL" not in [str(one) for one in listed(capabilities.get("drop"))]:
        found.add([*at, "securityContext", "capabilities", "drop"], "Capabilities", RESTRICTED)
    for port_index, port in enumerate(listed(container.get("ports"))):
        if mapping(port).get("hostPort") not in (None, 0):
            found.add([*at, "ports", port_index, "hostPort"], "Host Ports")
    _host_handlers(container, at, found)


def _context(context, at, found):
    """What a pod's and a container's security context share: host processes, SELinux, AppArmor,
    seccomp profiles that are unconfined, and the root user."""
    if mapping(context.get("windowsOptions")).get("hostProcess") is True:
        found.add([*at, "windowsOptions", "hostProcess"], "HostProcess")
    selinux = mapping(context.get("seLinuxOptions"))
    if selinux.get("type", "") not in SELINUX_TYPES:
        found.add([*at, "seLinuxOptions", "type"], "SELinux")
    for field in ("user", "role"):
        if selinux.get(field) not in (None, ""):
            found.add([*at, "seLinuxOptions", field], "SELinux")
    if mapping(context.get("appArmorProfile")).get("type") == "Unconfined":
        found.add([*at, "appArmorProfile", "type"], "AppArmor")
    if mapping(context.get("seccompProfile")).get("type") == "Unconfined":
        found.add([*at, "seccompProfile", "type"], "Seccomp")
    if context.get("runAsUser") == 0:
        found.add([*at, "runAsUser"], "Running as Non-root user", RESTRICTED)


def _capabilities(added, at, found):
    for index, name in enumerate(str(one).upper().removeprefix("CAP_") for one in added):
        if name not in BASELINE_CAPABILITIES:
            found.add([*at, index], "Capabilities")
        elif name != "NET_BIND_SERVICE":
            found.add([*at, index], "Capabilities", RESTRICTED)


def _host_handlers(container, at, found):
    """Probes and lifecycle hooks may not name a host (the node's addresses), since v1.34."""
    lifecycle = mapping(container.get("lifecycle"))
    handlers = [((probe,), container.get(probe)) for probe in PROBES]
    handlers += [(("lifecycle", hook), lifecycle.get(hook)) for hook in ("postStart", "preStop")]
    for path, handler in handlers:
        if not isinstance(handler, dict):  # most containers have no probe and no hook
            continue
        for action in ("httpGet", "tcpSocket"):
            if mapping(handler.get(action)).get("host") not in (None, ""):
                found.add([*at, *path, action, "host"], "Host Probes / Lifecycle Hooks")


def _non_root(pod, containers, where, found):
    """runAsNonRoot true on the pod or on every container, and false on none."""
    for field, index, container in containers:
        own = mapping(container.get("securityContext")).get("runAsNonRoot")
        if own is False or (own is None and pod.get("runAsNonRoot") is not True):
            found.add([*where, field, index, "securityContext", "runAsNonRoot"], "Running as Non-root", RESTRICTED)


def _seccomp(pod, containers, where, found):
    """RuntimeDefault or Localhost on the pod or on every container."""
    allowed = ("RuntimeDefault", "Localhost")
    pod_type = mapping(pod.get("seccompProfile")).get("type")
    for field, index, container in containers:
        own = mapping(mapping(container.get("securityContext")).get("seccompProfile")).get("type")
        if own not in allowed and not (own is None and pod_type in allowed):
            path = [*where, field, index, "securityContext", "seccompProfile", "type"]
            if own != "Unconfined":  # an unconfined one is baseline's finding already
                found.add(path, "Seccomp", RESTRICTED)


def of_service(service, where, target):
    """The findings of a Compose service (as Compose reads it, extends resolved) run by `target`:
    `compose` (Docker runs each key as written: a bind mount or a device is the host's) or
    `kubernetes` (what the conversion carries: privileged, capabilities, a numeric user; a bind
    mount there is an emptyDir). Silence is not a finding: under restricted, a conversion writes
    what the level requires where the file says nothing."""
    found = _Found()
    if service.get("privileged") is True:
        found.add([*where, "privileged"], "Privileged Containers")
    _capabilities(listed(service.get("cap_add")), [*where, "cap_add"], found)
    if _root(service.get("user")):
        found.add([*where, "user"], "Running as Non-root user", RESTRICTED)
    if target == "kubernetes":
        return found
    for key, control in (("network_mode", "Host Namespaces"), ("pid", "Host Namespaces"), ("ipc", "Host Namespaces")):
        if service.get(key) == "host":
            found.add([*where, key], control)
    for index, volume in enumerate(listed(service.get("volumes"))):
        if _bind(volume):
            found.add([*where, "volumes", index], "HostPath Volumes")
    for index, _ in enumerate(listed(service.get("devices"))):
        found.add([*where, "devices", index], "HostPath Volumes")
    for index, option in enumerate(str(one) for one in listed(service.get("security_opt"))):
        _security_option(option.replace("=", ":", 1), [*where, "security_opt", index], found)
    sysctls = service.get("sysctls")
    names = sysctls if isinstance(sysctls, dict) else [str(one).partition("=")[0] for one in listed(sysctls)]
    for name in names:
        if str(name).strip() not in SAFE_SYSCTLS:
            found.add([*where, "sysctls", name], "Sysctls")
    return found


def _root(user):
    """Whether a Compose `user` runs as root (uid 0 or the name root, any group)."""
    if user is None or isinstance(user, bool):
        return False
    name = str(user).partition(":")[0].strip()
    return name in ("root", "0") or (name.isdigit() and int(name) == 0)


def _bind(volume):
    """Whether a Compose volume mounts a path of the host (`type: bind`, or short syntax whose
    source Compose reads as a path: `compose_load.parse_volume`, Windows drives and shares too)."""
    if isinstance(volume, dict):
        return volume.get("type") == "bind"
    try:
        return parse_volume(str(volume))[0] == "bind"
    except LoadError:  # a spec Compose itself refuses: refused where the file is loaded
        return False


def _security_option(option, at, found):
    """`seccomp:unconfined`, `apparmor:unconfined`, `label:type:...` outside the container types,
    `label:user:` or `label:role:`, `label:disable` and `systempaths:unconfined` as the
    Standards read their Kubernetes counterparts; `no-new-privileges:false` under restricted."""
    key, _, value = option.partition(":")
    key, value = key.strip(), value.strip()
    if key == "seccomp" and value == "unconfined":
        found.add(at, "Seccomp")
    elif key == "apparmor" and value == "unconfined":
        found.add(at, "AppArmor")
    elif key == "label":
        field, _, name = value.partition(":")
        if field == "disable" or field in ("user", "role") or (field == "type" and name not in SELINUX_TYPES):
            found.add(at, "SELinux")
    elif key == "systempaths" and value == "unconfined":
        found.add(at, "/proc Mount Type")
    elif key == "no-new-privileges" and value == "false":
        found.add(at, "Privilege Escalation", RESTRICTED)
