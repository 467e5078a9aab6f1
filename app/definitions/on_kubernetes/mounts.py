"""What a service mounts, on a cluster: a named volume is a PersistentVolumeClaim of the size asked
for (made once, whoever mounts it), a bind mount or an anonymous volume an `emptyDir`, `tmpfs` and
`shm_size` an `emptyDir` in memory, `configs` and `secrets` with their content a ConfigMap or a
Secret mounted where Compose mounts them."""

from contextlib import suppress

from app.definitions.compose_load import claims, read_volume
from app.definitions.on_kubernetes.names import Names, label, metadata
from app.definitions.schemas import listed, mapping
from app.errors import Invalid
from app.model import quantities
from app.model.quantities import QuantityError

DOCKER_SOCKET = "/var/run/docker.sock"
SHM = "/dev/shm"  # noqa: S108 (where a container's shared memory is mounted, not a file opened here)


class Storage:
    """The claims, ConfigMaps and Secrets of one conversion, and each service's mounts of them."""

    def __init__(self, doc, cluster, labels, notes):
        self.top = {kind: mapping(doc.get(kind)) for kind in ("volumes", "configs", "secrets")}
        self.sizes, self.default_size = cluster.volume_sizes, cluster.volume_size
        unknown = sorted(set(self.sizes) - set(self.top["volumes"]))
        if unknown:
            raise Invalid({"volumeSizes": [f"The file declares no volume {name!r}." for name in unknown]})
        self.namespace, self.labels, self.notes = cluster.namespace, labels, notes
        self.values, self.secret_texts = cluster.values, cluster.secret_texts
        self.conventions = cluster.conventions
        self.claims, self.files, self.replicas = {}, {}, {}
        self.names = {kind: Names(kind) for kind in ("PersistentVolumeClaim", "ConfigMap", "Secret")}

    def objects(self):
        """The Secrets, then the ConfigMaps, then the claims."""
        files = sorted(self.files.values(), key=lambda made: made["kind"] != "Secret")
        return [*files, *(claim for claim in self.claims.values() if claim is not None)]

    def mounts(self, service, where, replicas):
        """(pod volumes, container volumeMounts, whether a claim is among them) of the service."""
        volumes, mounts = {}, []
        for index, entry in enumerate(listed(service.get("volumes"))):
            self._volume(entry, [*where, "volumes", index], replicas, volumes, mounts)
        tmpfs = service.get("tmpfs")
        for index, entry in enumerate([tmpfs] if isinstance(tmpfs, str) else listed(tmpfs)):
            path, _, options = str(entry).partition(":")
            name = f"tmpfs-{index}"
            volumes[name] = {"name": name, "emptyDir": {"medium": "Memory"}}
            mounts.append({"name": name, "mountPath": path})
            if options:
                self.notes.dropped([*where, "tmpfs", index], "tmpfs options are not carried: an emptyDir in memory")
        if "shm_size" in service:
            shm = {"medium": "Memory"}
            with suppress(QuantityError):  # Compose has refused it
                shm["sizeLimit"] = quantities.binary_text(quantities.compose_bytes(service["shm_size"]))
            volumes["dshm"] = {"name": "dshm", "emptyDir": shm}
            mounts.append({"name": "dshm", "mountPath": SHM})
        for kind in ("configs", "secrets"):
            for index, entry in enumerate(listed(service.get(kind))):
                self._file(kind, entry, [*where, kind, index], volumes, mounts)
        claimed = any("persistentVolumeClaim" in volume for volume in volumes.values())
        return list(volumes.values()), mounts, claimed

    def _volume(self, entry, path, replicas, volumes, mounts):
        kind, source, target, read_only, sub_path = read_volume(entry)
        if target is None:
            return
        for key, value in _options(entry):
            self.notes.dropped([*path, *key], f"a mount option ({value!r:.40}) a pod's volume has no field for")
        mount = {"mountPath": target}
        if read_only:
            mount["readOnly"] = True
        if sub_path:
            mount["subPath"] = sub_path
        if claims(kind, source, target):
            claim = self._claim(source, path, replicas)
            name = label(f"claim-{claim}")
            volumes[name] = {"name": name, "persistentVolumeClaim": {"claimName": claim}}
        else:
            name = f"empty-{path[-1]}"
            volumes[name] = {"name": name, "emptyDir": {}}
            if kind == "bind":
                why = (
                    "the Docker socket is not on a cluster's nodes"
                    if source == DOCKER_SOCKET
                    else "a bind mount's content is not in the blueprint: an empty directory"
                )
                self.notes.approximated(path, why)
            elif kind == "unset":
                self.notes.approximated(path, "its source is a variable without a default: an empty directory")
            elif kind not in ("volume", "tmpfs"):
                self.notes.approximated(path, f"a {kind} mount: an empty directory")
            if kind == "tmpfs":
                volumes[name]["emptyDir"] = {"medium": "Memory", **_size_limit(mapping(entry).get("tmpfs"))}
        mounts.append({"name": name, **mount})

    def _claim(self, key, path, replicas):
        """The claim of the named volume `key`, made at its first mount."""
        declared = mapping(self.top["volumes"].get(key))
        name = self.names["PersistentVolumeClaim"].of(declared.get("name") or key, f"volumes.{key}")
        if key not in self.claims:
            where = ["volumes", key]
            if declared.get("external"):
                self.notes.approximated(where, "an external volume: a claim of its name, expected to exist")
            for option in sorted(set(declared) - {"name", "external"}):
                self.notes.dropped(
                    [*where, option], "a volume driver's setting: the claim uses the cluster's storage class"
                )
            size = self.sizes.get(key, self.default_size)
            spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}
            if storage_class := self.conventions.get("storageClass"):
                spec["storageClassName"] = storage_class
            made = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": self._metadata(name), "spec": spec}
            self.claims[key] = None if declared.get("external") else made
        self.replicas[key] = self.replicas.get(key, 0) + replicas
        if self.replicas[key] > 1:
            self.notes.approximated(path, "mounted by more than one pod: a ReadWriteOnce claim holds them on one node")
        return name

    def _file(self, kind, entry, path, volumes, mounts):
        """A config or a secret the service mounts, from its content."""
        long = mapping(entry)
        source = long.get("source") if isinstance(entry, dict) else entry
        if not isinstance(source, str):
            return
        declared = mapping(self.top[kind].get(source))
        content = declared.get("content")
        if "environment" in declared:
            content = self.values.get(declared["environment"])
            if content is None:
                self.notes.dropped(
                    [kind, source, "environment"], "a variable of the shell that runs Compose: not set here"
                )
                content = ""
        if content is None:
            why = (
                "its file is not in the blueprint" if "file" in declared else "an external one is not in the blueprint"
            )
            self.notes.dropped(path, why)
            return
        made = self._made(kind, source, str(content))
        target = long.get("target") or source
        if not target.startswith("/"):
            target = f"/run/secrets/{target}" if kind == "secrets" else f"/{target}"
        name = label(f"{kind[:-1]}-{made['metadata']['name']}")
        holder = "secret" if made["kind"] == "Secret" else "configMap"
        reference = (
            {"secretName": made["metadata"]["name"]} if holder == "secret" else {"name": made["metadata"]["name"]}
        )
        if isinstance(long.get("mode"), int):
            reference["defaultMode"] = long["mode"]
        volumes[name] = {"name": name, holder: reference}
        mounts.append({"name": name, "mountPath": target, "subPath": "content", "readOnly": True})
        for key in ("uid", "gid"):
            if key in long:
                self.notes.dropped([*path, key], "the file's owner is the pod's fsGroup, not set per file")

    def _made(self, kind, source, content):
        """The ConfigMap or Secret of a config or secret, made once; a config that holds a secret
        value is a Secret."""
        if (kind, source) not in self.files:
            secret = kind == "secrets" or any(text in content for text in self.secret_texts)
            object_kind = "Secret" if secret else "ConfigMap"
            name = self.names[object_kind].of(f"{kind[:-1]}-{source}", f"{kind}.{source}")
            made = {"apiVersion": "v1", "kind": object_kind, "metadata": self._metadata(name)}
            made["stringData" if secret else "data"] = {"content": content}
            self.files[kind, source] = made
        return self.files[kind, source]

    def _metadata(self, name):
        return metadata(name, self.labels, self.namespace)


def _size_limit(tmpfs):
    """A tmpfs mount's `size` as an in-memory emptyDir's sizeLimit ({} where it has none)."""
    with suppress(QuantityError):  # Compose has refused it
        size = mapping(tmpfs).get("size")
        if size is not None:
            return {"sizeLimit": quantities.binary_text(quantities.compose_bytes(size))}
    return {}


CARRIED_OPTIONS = {("type",), ("source",), ("target",), ("read_only",), ("volume", "subpath")}


def _options(entry):
    """(path, value) of each setting of a long-syntax mount that is not carried (`bind.propagation`,
    `volume.nocopy`, `consistency`...)."""
    if not isinstance(entry, dict):
        return []
    found = []
    for key, value in entry.items():
        nested = value.items() if isinstance(value, dict) else [(None, value)]
        for inner, one in nested:
            path = (key,) if inner is None else (key, inner)
            if path not in CARRIED_OPTIONS and not (key == "tmpfs" and inner == "size"):
                found.append((path, one))
    return found
