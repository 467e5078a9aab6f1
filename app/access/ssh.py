"""The ssh command the service runs to reach a host (a source's git remote, an environment's
engine): no configuration but these options, the address checked before (HostName, with the
name kept for the host key: HostKeyAlias), host keys from the trusted file alone, the deploy key
alone (or none), no prompt, no proxy, no local command."""

import os

from flask import current_app


def command(remote, folder, deploy_key, known_hosts=None):
    """`ssh` with its options for `remote` (addresses.Remote); the deploy key and the environment's
    own `known_hosts` (else SOURCE_KNOWN_HOSTS) are written in `folder`, the owner's alone."""
    trusted = current_app.config["SOURCE_KNOWN_HOSTS"]
    if known_hosts:
        trusted = _written(folder, "known_hosts", known_hosts)
    options = {
        "BatchMode": "yes",
        "StrictHostKeyChecking": "yes",
        "UserKnownHostsFile": trusted,
        "HostKeyAlias": remote.host,
        "HostName": remote.address,
        "ConnectTimeout": "15",
        "IdentitiesOnly": "yes",
        "ProxyCommand": "none",
        "PermitLocalCommand": "no",
    }
    found = ["ssh", "-F", os.devnull, *(item for key, value in options.items() for item in ("-o", f"{key}={value}"))]
    if deploy_key:
        return [*found, "-i", _written(folder, "deploy_key", deploy_key)]
    return [*found, "-o", "IdentityFile=none"]


def _written(folder, name, text):
    path = os.path.join(folder, name)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
        file.write(text.strip() + "\n")
    return path
