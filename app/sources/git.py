"""A source's commit fetched with the `git` program into a bare repository of its own, and the
files under its folder read from the fetched objects, never from a work tree.

git runs with no configuration but ours: https and ssh only, no redirects, no submodules, no LFS,
no prompt; https connects to the address checked (`http.curlOptResolve`), ssh to it too
(`HostName`) with host keys only from SOURCE_KNOWN_HOSTS (`HostKeyAlias` keeps the name); a token
travels in an `Authorization` header given through the environment, never on a command line.
Symbolic links and submodules are skipped; what is read is bounded as an import is."""

import base64
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
from contextlib import contextmanager
from pathlib import PurePosixPath

from flask import current_app

from app.access import ssh
from app.imports.formats import MAX_IMPORT_BYTES

MAX_FILES = 5_000
MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 32  # folders a listed path may nest in
MAX_ENTRY = 8192  # bytes of one listed entry (its mode, kind, id, size and a path of at most 4096)
PASSED_ON = ("PATH", "SSL_CERT_FILE", "SSL_CERT_DIR", "GIT_SSL_CAINFO", "LANG")


class FetchFailed(Exception):
    """The repository could not be fetched or read: the message says why, without credentials."""


def clean_path(path):
    """`path` as a folder inside the repository ('' for its root); ValueError when it leaves it."""
    given = PurePosixPath(path or ".")
    parts = given.parts
    if given.is_absolute() or ".." in parts or any(part.startswith("-") for part in parts):
        raise ValueError("A folder inside the repository: relative, without `..` or a leading `-`.")
    return "/".join(part for part in parts if part != ".")


class Tree:
    """The regular files of a fetched commit under a folder: their `names` (relative to it; a
    file named as the folder is itself, by its own name), and `read(names)`, their texts."""

    def __init__(self, environment, repository, commit, path):
        self.environment, self.repository, self.commit, self.path = environment, repository, commit, path
        self.blobs = {}
        listing = ("-C", repository, "ls-tree", "-r", "-z", "--long", "--full-tree", commit, "--", path or ".")
        for count, line in enumerate(_streamed(environment, listing), start=1):
            meta, name = line.split("\t", 1)
            if count > MAX_FILES:
                raise FetchFailed(f"The folder holds more than {MAX_FILES} files: follow a folder of fewer (`path`).")
            if name.count("/") >= MAX_DEPTH:
                raise FetchFailed(f"The folder nests deeper than {MAX_DEPTH} folders: follow a shallower one (`path`).")
            mode, kind, sha, size = meta.split()
            if kind == "blob" and mode in ("100644", "100755"):  # not a symbolic link, nor a submodule
                self.blobs[_below(name, path)] = (sha, int(size))
        self.names = sorted(self.blobs)

    def _git(self, *arguments, data=None):
        return run(self.environment, "-C", self.repository, *arguments, data=data)

    def read(self, names):
        """{name: text} of `names` (those that are UTF-8 text), within an import's bounds."""
        wanted = [name for name in names if name in self.blobs]
        sizes = [self.blobs[name][1] for name in wanted]
        if len(wanted) > MAX_FILES or sum(sizes) > MAX_IMPORT_BYTES or max(sizes, default=0) > MAX_FILE_BYTES:
            raise FetchFailed(f"The templates are more than {MAX_FILES} files or {MAX_IMPORT_BYTES // 2**20} MiB.")
        if not wanted:
            return {}
        blobs = self._git("cat-file", "--batch", data="".join(f"{self.blobs[name][0]}\n" for name in wanted).encode())
        texts, at = {}, 0
        for name in wanted:
            header_end = blobs.index(b"\n", at)
            size = int(blobs[at:header_end].split()[2])
            content, at = blobs[header_end + 1 : header_end + 1 + size], header_end + 1 + size + 1
            try:
                texts[name] = content.decode()
            except UnicodeDecodeError:
                continue
        return texts


@contextmanager
def fetched(remote, ref, path, token=None, deploy_key=None):
    """The `Tree` of `path` at `ref` (None: the remote's HEAD), with its `commit`, fetched from the
    checked `remote`; everything fetched goes on exit."""
    with tempfile.TemporaryDirectory(prefix="source-") as folder:
        repository = os.path.join(folder, "repository.git")
        environment = environment_for(folder, remote, token, deploy_key)
        run(environment, "init", "--bare", "--quiet", repository)
        wanted = f"+{ref or 'HEAD'}:refs/sync/fetched"
        run(environment, "-C", repository, "fetch", "--depth=1", "--no-tags", "--quiet", "--", remote.url, wanted)
        commit = run(environment, "-C", repository, "rev-parse", "--verify", "refs/sync/fetched^{commit}").strip()
        yield Tree(environment, repository, commit, path)


def environment_for(folder, remote, token, deploy_key, known_hosts=None, more=None):
    """git's environment: none of the machine's configuration, ours given as GIT_CONFIG_* (with
    `more` settings); over ssh, `known_hosts` trusted (else SOURCE_KNOWN_HOSTS)."""
    settings = {
        "protocol.allow": "never",
        "protocol.https.allow": "always",
        "protocol.ssh.allow": "always",
        "http.followRedirects": "false",
        "http.lowSpeedLimit": "1000",
        "http.lowSpeedTime": "30",
        "fetch.recurseSubmodules": "false",
        "core.hooksPath": os.devnull,
        "transfer.fsckObjects": "true",
        **(more or {}),
    }
    host = f"[{remote.address}]" if ":" in remote.address else remote.address
    if remote.scheme == "https":
        settings["http.curlOptResolve"] = f"{remote.host}:{remote.port}:{host}"
        if token:
            basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
            settings["http.extraHeader"] = f"Authorization: Basic {basic}"
    environment = {name: os.environ[name] for name in PASSED_ON if name in os.environ}
    environment |= {
        "HOME": folder,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "/bin/false",
        "GIT_LFS_SKIP_SMUDGE": "1",
        "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_CONFIG_COUNT": str(len(settings)),
    }
    for index, (key, value) in enumerate(settings.items()):
        environment[f"GIT_CONFIG_KEY_{index}"], environment[f"GIT_CONFIG_VALUE_{index}"] = key, value
    if remote.scheme == "ssh":
        environment["GIT_SSH_COMMAND"] = shlex.join(ssh.command(remote, folder, deploy_key, known_hosts))
        environment["GIT_SSH_VARIANT"] = "ssh"
    return environment


def run(environment, *arguments, data=None):
    """git's standard output (bytes where `data` is given, else text); FetchFailed when it fails."""
    seconds, program = current_app.config["SOURCE_FETCH_SECONDS"], shutil.which("git")
    if program is None:
        raise FetchFailed("The service's machine has no `git` program.")
    try:
        done = subprocess.run(
            [program, *arguments], env=environment, input=data, capture_output=True, timeout=seconds, check=False
        )
    except subprocess.TimeoutExpired:
        raise FetchFailed(f"git took longer than {seconds} s.") from None
    if done.returncode != 0:
        raise FetchFailed(_said(done.stderr.decode(errors="replace").strip().splitlines(), done.returncode))
    return done.stdout if data is not None else done.stdout.decode()


def _streamed(environment, arguments):
    """The NUL-ended entries git prints for `arguments`, read as they come, so that a listing
    its caller stops at a bound never holds more than a chunk and an entry in memory (git is
    killed then, and at SOURCE_FETCH_SECONDS). FetchFailed when git fails."""
    seconds, program = current_app.config["SOURCE_FETCH_SECONDS"], shutil.which("git")
    if program is None:
        raise FetchFailed("The service's machine has no `git` program.")
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen([program, *arguments], env=environment, stdout=subprocess.PIPE, stderr=errors)
        late = threading.Event()
        timer = threading.Timer(seconds, lambda: (late.set(), process.kill()))
        timer.start()
        try:
            pending = b""
            while chunk := process.stdout.read(65536):
                *entries, pending = (pending + chunk).split(b"\0")
                if len(pending) > MAX_ENTRY:
                    raise FetchFailed("git listed an entry longer than a path may be.")
                yield from (entry.decode(errors="replace") for entry in entries)
            code = process.wait()
        finally:
            timer.cancel()
            if process.poll() is None:  # stopped where its reader stopped
                process.kill()
                process.wait()
        if late.is_set():
            raise FetchFailed(f"git took longer than {seconds} s.")
        if code != 0:
            errors.seek(0)
            raise FetchFailed(_said(errors.read().decode(errors="replace").strip().splitlines(), code))


REFUSED = ("could not read Username", "Authentication failed", "Permission denied", "403")


def _said(lines, code):
    """What git's complaint says, cut short: where the repository refused access, what to do;
    else its first fatal line (never the token: a header, not the URL)."""
    if any(sign in line for line in lines for sign in REFUSED):
        return "The repository refused access: give the source a token (https) or a deploy key (ssh) that may read it."
    fatal = [line.removeprefix("fatal: ") for line in lines if line.startswith("fatal: ")]
    return (fatal or lines or [f"git exited with {code}."])[0][:300]


def _below(name, path):
    """`name` relative to the folder `path` (a file's own name where `path` is the file)."""
    if not path:
        return name
    return PurePosixPath(name).name if name == path else name[len(path) + 1 :]
