"""What a conversion does not carry over exactly, each with its place in the Compose file and why:
`dropped` (nothing on the cluster stands for it) or `approximated` (something close does)."""

DROPPED, APPROXIMATED = "dropped", "approximated"

# Service keys a cluster has no counterpart for, and why (any other key not carried is named too)
WHY = {
    "annotations": "container annotations have no Kubernetes counterpart; the pod's come from `labels`",
    "blkio_config": "Kubernetes has no block I/O weights",
    "build": "a cluster runs images: build it and push it to a registry the cluster pulls from",
    "cgroup": "the cgroup namespace is the node's",
    "cgroup_parent": "the cgroup hierarchy is the kubelet's",
    "container_name": "pods are named by their Deployment; the Service keeps the service's name",
    "cpu_count": "no Kubernetes field; CPU is the limit counted",
    "cpu_percent": "no Kubernetes field; CPU is the limit counted",
    "cpu_period": "the CFS period is the kubelet's",
    "cpu_quota": "no Kubernetes field; CPU is the limit counted",
    "cpu_rt_period": "Kubernetes has no real-time scheduling",
    "cpu_rt_runtime": "Kubernetes has no real-time scheduling",
    "cpu_shares": "no Kubernetes field; requests set the shares",
    "cpuset": "CPU pinning is the kubelet's CPU manager's",
    "credential_spec": "Windows credential specs are not converted",
    "develop": "`docker compose watch` has no cluster counterpart",
    "device_cgroup_rules": "device rules are the node's",
    "devices": "a device is a node's: use a device plugin",
    "dns": "the pod uses the cluster's DNS, which resolves every Service",
    "dns_opt": "the pod uses the cluster's DNS options",
    "dns_search": "the pod uses the cluster's search domains",
    "domainname": "no Kubernetes field",
    "env_file": "the file is not in the blueprint: give its variables as `environment`",
    "external_links": "containers outside the project are not on the cluster",
    "gpus": "GPUs are a device plugin's resource, not counted by the profile",
    "init": "no Kubernetes field: the image's entrypoint is the first process",
    "ipc": "IPC namespaces are not shared between pods",
    "isolation": "Windows isolation is not converted",
    "label_file": "the file is not in the blueprint",
    "links": "every service resolves by its name through its Service",
    "logging": "logs are collected by the cluster",
    "mac_address": "the pod network assigns addresses",
    "mem_swappiness": "Kubernetes has no swappiness",
    "memswap_limit": "Kubernetes counts no swap",
    "models": "AI models are not converted",
    "network_mode": "every pod is on the cluster network",
    "networks": "one cluster network: every Service resolves in the namespace",
    "oom_kill_disable": "the kubelet decides what to kill",
    "oom_score_adj": "the kubelet sets OOM scores from the pod's QoS",
    "pid": "process namespaces are not shared between pods",
    "pids_limit": "the process limit is the kubelet's",
    "platform": "the node's architecture is the scheduler's: use a node selector",
    "post_start": "lifecycle hooks are not converted",
    "pre_stop": "lifecycle hooks are not converted",
    "provider": "a provider service runs outside the project",
    "runtime": "the runtime is the node's: use a RuntimeClass",
    "security_opt": "seccomp and AppArmor profiles are the cluster's",
    "stop_signal": "Kubernetes stops a container with SIGTERM (the image's STOPSIGNAL stays)",
    "storage_opt": "a container's writable layer has no size on a cluster",
    "sysctls": "pod sysctls need the cluster to allow them",
    "ulimits": "no Kubernetes field",
    "use_api_socket": "a cluster has no Docker API socket",
    "userns_mode": "user namespaces are the node's",
    "uts": "the UTS namespace is the pod's",
    "volumes_from": "a pod mounts volumes, not another container's",
}


class Notes(list):
    """The notes of one conversion, in the order met."""

    def dropped(self, path, why):
        self.append({"path": _dotted(path), "outcome": DROPPED, "why": why})

    def approximated(self, path, why):
        self.append({"path": _dotted(path), "outcome": APPROXIMATED, "why": why})


def _dotted(path):
    return ".".join(str(part) for part in path)
