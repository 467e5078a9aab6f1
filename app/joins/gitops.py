"""A git environment's repository, written as Argo CD and Flux read it: under the environment's
`path`, a folder per namespace holding an instance's objects (a file each, `kind-name.yaml`, the
bytes admitted) and a `kustomization.yaml` listing them, and `path/kustomization.yaml` listing every
namespace folder, so that `kubectl kustomize path` builds the environment.

Each delivery is one commit (`<instance> release <n> by <user>`, the service its author) on a
shallow clone of the environment's branch, pushed; a push the remote refuses because the branch
moved is fetched and the commit made again on the new head, at most PUSH_TRIES times, never forced.
A delivery that changes nothing makes no commit. git runs as a source's does (app/sources/git.py:
the address checked, the environment's token or deploy key and host keys)."""

import hashlib
import re
import shutil
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from flask import current_app

from app.access import addresses, sealing
from app.environments.storage import store as environments
from app.imports.formats import MAX_IMPORT_BYTES
from app.model import yamlguard
from app.sources import git

PUSH_TRIES = 5
_TURNS, _TURNS_LOCK = {}, threading.Lock()  # a lock per branch written, made once
UNSAFE = re.compile(r"[^a-z0-9.-]")  # in a file's name, what a Kubernetes name and kind would not hold
AUTHOR = {"user.name": "Blueprint catalog", "user.email": "blueprints@localhost"}
KUSTOMIZATION = "kustomization.yaml"
HEADER = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"


class Refused(Exception):
    """The repository could not be written or read, and why."""


def files_of(yml):
    """{file name: text} of an instance's folder: each object of its admitted stream as admitted,
    and the folder's kustomization listing them."""
    files = {}
    for text in _documents(yml):
        found = (yamlguard.load(text) or [None])[0]
        if not isinstance(found, dict):
            continue
        named = f"{found.get('kind', 'object')}-{(found.get('metadata') or {}).get('name', 'unnamed')}"
        name = base = UNSAFE.sub("-", named.lower())[:200]
        for again in range(2, len(files) + 2):  # names alike once cut to 200 characters: numbered
            if f"{name}.yaml" not in files:
                break
            name = f"{base}-{again}"
        files[f"{name}.yaml"] = text if text.endswith("\n") else text + "\n"
    files[KUSTOMIZATION] = _kustomization(sorted(files))
    return files


def deliver(environment, namespace, yml, message):
    """Write the instance's folder `namespace` as `yml` admits it, in one commit; the commit."""
    return _committed(environment, message, lambda root: _write(root, namespace, files_of(yml)))


def remove(environment, namespace, message):
    """Remove the folder `namespace`, in one commit; the commit."""
    return _committed(environment, message, lambda root: _write(root, namespace, None))


def read(environment):
    """(the branch's head commit, {namespace folder: {file name: text}}) under the environment's path."""
    with _clone(environment) as (work, root, environ):
        head, folders, files, size = _head(work, environ), {}, 0, 0
        for folder in sorted(root.iterdir()) if root.is_dir() and not root.is_symlink() else ():
            if not folder.is_dir() or folder.is_symlink() or folder.name.startswith("."):
                continue
            held = folders[folder.name] = {}
            for file in sorted(folder.iterdir()):
                if file.is_symlink() or not file.is_file():
                    continue
                files, size = files + 1, size + file.stat().st_size
                if files > git.MAX_FILES or size > MAX_IMPORT_BYTES:  # bounded as a source's sync is
                    raise Refused(f"The environment's folder holds more than {git.MAX_FILES} files or 16 MiB.")
                held[file.name] = file.read_text(errors="replace")
        return head, folders


def digest(text):
    """A file's content, as drift shows it: `sha256:` and its first 12 hexadecimal digits."""
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:12]


def _documents(yml):
    """The documents of a YAML stream as written, split at its `---` lines."""
    parts, current = [], []
    for line in yml.splitlines(keepends=True):
        if line.rstrip() == "---":
            parts.append("".join(current))
            current = []
        else:
            current.append(line)
    parts.append("".join(current))
    return [part for part in parts if part.strip()]


def _kustomization(names):
    return HEADER + "".join(f"- {name}\n" for name in names if name != KUSTOMIZATION)


def _write(root, namespace, files):
    """Replace the folder `namespace` under `root` with `files` (None: remove it), and the root's
    kustomization with every namespace folder holding one."""
    folder = root / namespace
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)  # what was added there by hand goes too: the folder is the instance's
    elif folder.exists() or folder.is_symlink():
        folder.unlink()
    if files is not None:
        folder.mkdir(parents=True)
        for name, text in files.items():
            (folder / name).write_text(text)
    root.mkdir(parents=True, exist_ok=True)
    held = sorted(one.name for one in root.iterdir() if (one / KUSTOMIZATION).is_file())
    (root / KUSTOMIZATION).write_text(_kustomization(held))


def _committed(environment, message, change):
    """Clone, `change(root)`, commit `message` and push; again on the new head where the branch
    moved meanwhile (the remote's head is no longer the one cloned). The commit (the head where
    nothing changed). The deliveries of one process to one branch take turns (they would only
    move the branch under each other); other processes' are met by the retries."""
    with _turn(environment):
        return _pushed(environment, message, change)


def _turn(environment):
    """This process's lock of the environment's branch."""
    key = (environment["url"], environment.get("ref"))
    with _TURNS_LOCK:
        return _TURNS.setdefault(key, threading.Lock())


def _pushed(environment, message, change):
    for _ in range(PUSH_TRIES):
        with _clone(environment) as (work, root, environ):
            run = lambda *arguments: git.run(environ, "-C", str(work), *arguments)  # noqa: E731
            base, branch = _head(work, environ), _branch(environment, work, environ)
            change(root)
            run("add", "-A")
            if not run("status", "--porcelain").strip():
                return base
            run("commit", "--quiet", "-m", message)
            try:
                run("push", "--quiet", "origin", f"HEAD:refs/heads/{branch}")
            except git.FetchFailed as exc:
                now = run("ls-remote", "origin", f"refs/heads/{branch}").split("\t")[0].strip() or None
                if now != base:
                    continue  # the branch moved: make the commit again on its new head
                raise Refused(str(exc)) from None
            return run("rev-parse", "HEAD").strip()
    raise Refused(f"The branch kept moving: {PUSH_TRIES} pushes were refused.")


@contextmanager
def _clone(environment):
    """(the work tree, the environment's folder in it, git's environment) of a shallow clone of
    the environment's branch, gone when the block ends; Refused saying why not."""
    try:
        remote = addresses.checked(environment["url"], current_app.config, "ENVIRONMENT", environment.get("knownHosts"))
        token = sealing.unsealed(environment, "token", environments.collection)
        deploy_key = sealing.unsealed(environment, "deployKey", environments.collection)
    except ValueError as exc:
        raise Refused(f"The repository may not be reached: {exc}") from None
    with tempfile.TemporaryDirectory(prefix="gitops-") as folder:
        environ = git.environment_for(folder, remote, token, deploy_key, environment.get("knownHosts"), AUTHOR)
        work = Path(folder) / "work"
        branch = ["--branch", environment["ref"]] if environment.get("ref") else []
        try:
            git.run(environ, "clone", "--quiet", "--depth=1", "--no-tags", *branch, "--", remote.url, str(work))
        except git.FetchFailed as exc:
            raise Refused(str(exc)) from None
        root = work / environment["path"] if environment.get("path") else work
        yield work, root, environ


def _head(work, environ):
    """The commit cloned, or None in an empty repository."""
    try:
        return git.run(environ, "-C", str(work), "rev-parse", "--verify", "-q", "HEAD").strip() or None
    except git.FetchFailed:
        return None


def _branch(environment, work, environ):
    """The branch written: the environment's `ref`, else the remote's HEAD (`main` in an empty repository)."""
    if environment.get("ref"):
        return environment["ref"]
    found = git.run(environ, "-C", str(work), "symbolic-ref", "--short", "-q", "HEAD").strip()
    return found or "main"
