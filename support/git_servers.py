"""Real git servers for the sources' tests: a repository whose history the tests write (commits
that change, add, remove and rename templates), served over smart HTTP (`git http-backend` run by
fcgiwrap behind the real nginx, with TLS, a private path that takes a token, and a path that only
redirects) and over ssh (Debian's sshd, which takes a deploy key)."""

import base64
import itertools
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from support.nginx import Nginx, listening
from support.ports import free_port

PACKAGES = "Debian's git, nginx, fcgiwrap and openssh-server (make test installs them when run as root)"
BACKEND = "/usr/lib/git-core/git-http-backend"
TOKEN = "a-token-only-the-private-path-takes"
BACKEND_CALL = """
            include /etc/nginx/fastcgi_params;
            fastcgi_param SCRIPT_FILENAME {backend};
            fastcgi_param GIT_HTTP_EXPORT_ALL "";
            fastcgi_param GIT_PROJECT_ROOT {root};
            fastcgi_param PATH_INFO $1;
            fastcgi_pass unix:{socket};
"""
GIT_LOCATIONS = """
        location ~ ^/git(/.*)$ {{{call}}}
        location ~ ^/private(/.*)$ {{
            if ($http_authorization != "{basic}") {{ return 401; }}{call}}}
        location /moved/ {{
            return 301 https://127.0.0.1:$server_port/git/catalog.git;
        }}
"""
IDENTITY = {
    "GIT_AUTHOR_NAME": "Catalog Keeper",
    "GIT_AUTHOR_EMAIL": "keeper@example.test",
    "GIT_COMMITTER_NAME": "Catalog Keeper",
    "GIT_COMMITTER_EMAIL": "keeper@example.test",
}


def _needs(*programs):
    missing = [program for program in programs if not (shutil.which(program) or os.path.exists(program))]
    if missing:
        assert not os.environ.get("REQUIRE_BROWSER"), f"this test needs {PACKAGES}: missing {missing}"
        pytest.skip(f"this test needs {PACKAGES}")


def _git(*arguments, cwd=None, data=None):
    environment = {**os.environ, **IDENTITY, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        [shutil.which("git"), *arguments],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        input=data,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


class Repository:
    """A bare repository `root/NAME.git` and a work tree the tests commit from."""

    def __init__(self, root, name="catalog"):
        _needs("git")
        self.bare, self.work = root / f"{name}.git", root / f"{name}-work"
        _git("init", "--bare", "--quiet", "--initial-branch=main", str(self.bare))
        _git("init", "--quiet", "--initial-branch=main", str(self.work))
        _git("remote", "add", "origin", str(self.bare), cwd=self.work)

    def commit(self, message, write=None, remove=(), rename=None, branch="main"):
        """Commit the files `write` ({path: text}), the paths `remove` and the moves `rename`
        ({old: new}) on `branch`, push it, and give the commit's id."""
        for path, text in (write or {}).items():
            target = self.work / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        for path in remove:
            _git("rm", "-r", "--quiet", path, cwd=self.work)
        for old, new in (rename or {}).items():
            (self.work / new).parent.mkdir(parents=True, exist_ok=True)
            _git("mv", old, new, cwd=self.work)
        _git("add", "-A", cwd=self.work)
        _git("commit", "--quiet", "--allow-empty", "-m", message, cwd=self.work)
        _git("push", "--quiet", "origin", f"HEAD:refs/heads/{branch}", cwd=self.work)
        return _git("rev-parse", "HEAD", cwd=self.work)

    def grafted(self, name, widths):
        """Commit, beside what is committed, a folder `name` of nested trees built from one blob
        (`widths`: the entries of each level, the last level's the blob): a few kilobytes packed
        that list as the product of the widths in paths (a git bomb), or as deep as `widths` is
        long. The work tree is left behind: commit nothing after it."""
        entry = ("100644", "blob", _git("hash-object", "-w", "--stdin", cwd=self.work, data="x\n"))
        for width in reversed(widths):
            lines = "".join(f"{entry[0]} {entry[1]} {entry[2]}\t{index}\n" for index in range(width))
            entry = ("040000", "tree", _git("mktree", cwd=self.work, data=lines))
        root = _git("ls-tree", "HEAD", cwd=self.work) + f"\n{entry[0]} {entry[1]} {entry[2]}\t{name}\n"
        tree = _git("mktree", cwd=self.work, data=root)
        commit = _git("commit-tree", tree, "-p", "HEAD", "-m", f"graft {name}", cwd=self.work)
        _git("push", "--quiet", "origin", f"{commit}:refs/heads/main", cwd=self.work)
        return commit

    def link(self, path, target):
        """Commit a symbolic link `path` -> `target`."""
        (self.work / path).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, self.work / path)
        return self.commit(f"link {path}")


class HttpGit:
    """`root`'s repositories at https://127.0.0.1:PORT/git/NAME.git (and /private/, which takes
    TOKEN; /moved/ only redirects), served by git http-backend behind nginx."""

    def __init__(self, folder, root, names=()):
        _needs("/usr/sbin/fcgiwrap", BACKEND, "git")
        self.folder, self.root = folder, root
        self.socket = folder / "fcgiwrap.sock"
        basic = "Basic " + base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
        call = BACKEND_CALL.format(backend=BACKEND, root=root, socket=self.socket)
        locations = GIT_LOCATIONS.format(basic=basic, call=call)
        folder.mkdir(parents=True, exist_ok=True)
        self.nginx = Nginx(folder / "nginx", None, locations=locations, names=names)
        self.fcgiwrap = None

    @property
    def base(self):
        return f"https://127.0.0.1:{self.nginx.port}"

    def url(self, repository, path="git", host="127.0.0.1"):
        return f"https://{host}:{self.nginx.port}/{path}/{repository.bare.name}"

    @property
    def certificate(self):
        return str(self.nginx.certificate)

    def __enter__(self):
        self.fcgiwrap = subprocess.Popen(
            ["/usr/sbin/fcgiwrap", "-c", "4", "-s", f"unix:{self.socket}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its four children in its group, stopped with it
        )
        deadline = time.monotonic() + 30
        while not self.socket.exists():
            assert time.monotonic() < deadline and self.fcgiwrap.poll() is None, "fcgiwrap did not start"
            time.sleep(0.05)
        self.nginx.__enter__()
        return self

    def __exit__(self, *exc):
        self.nginx.__exit__(*exc)
        os.killpg(self.fcgiwrap.pid, signal.SIGKILL)  # its children outlive a TERM of the parent alone
        self.fcgiwrap.wait(timeout=30)


class SshGit:
    """`root`'s repositories at ssh://root@127.0.0.1:PORT/ROOT/NAME.git, served by sshd, which
    takes the deploy key `deploy_key` alone; `known_hosts` names its host key."""

    def __init__(self, folder):
        _needs("/usr/sbin/sshd", "ssh-keygen", "git")
        if os.geteuid() != 0:
            pytest.skip("sshd serves git as root here; run the tests as root (CI does)")
        self.folder, self.port = folder, free_port()
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("host_key", "deploy_key", "other_key"):
            subprocess.run(
                [shutil.which("ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-f", str(folder / name)], check=True
            )
        (folder / "authorized_keys").write_text((folder / "deploy_key.pub").read_text())
        host_key = (folder / "host_key.pub").read_text().split()[:2]
        self.known_hosts = folder / "known_hosts"
        self.known_hosts.write_text(f"127.0.0.1 {' '.join(host_key)}\n[127.0.0.1]:{self.port} {' '.join(host_key)}\n")
        self.deploy_key = (folder / "deploy_key").read_text()
        self.other_key = (folder / "other_key").read_text()
        self.process = None

    def url(self, repository):
        return f"ssh://root@127.0.0.1:{self.port}{repository.bare}"

    def __enter__(self):
        Path("/run/sshd").mkdir(exist_ok=True)
        options = {
            "Port": self.port,
            "ListenAddress": "127.0.0.1",
            "HostKey": self.folder / "host_key",
            "AuthorizedKeysFile": self.folder / "authorized_keys",
            "PidFile": self.folder / "sshd.pid",
            "PasswordAuthentication": "no",
            "KbdInteractiveAuthentication": "no",
            "PermitRootLogin": "prohibit-password",
            "StrictModes": "no",
            "UsePAM": "no",
        }
        arguments = [item for key, value in options.items() for item in ("-o", f"{key}={value}")]
        self.process = subprocess.Popen(
            ["/usr/sbin/sshd", "-D", "-e", "-f", os.devnull, *arguments],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        listening(self.process, self.port, lambda: "sshd stopped")
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=30)


_names = itertools.count()


@pytest.fixture(scope="module")
def forge(tmp_path_factory):
    """A git server over smart HTTP for a module's tests, its repositories each test's own."""
    root = tmp_path_factory.mktemp("forge")
    (root / "repositories").mkdir()
    with HttpGit(root / "server", root / "repositories", names=("git.example.test",)) as server:
        yield server


@pytest.fixture
def repository(forge):
    return Repository(forge.root, f"catalog{next(_names)}")


def reaching(app, forge, monkeypatch):
    """`app` as its operator sets it to follow the forge: its host allowed on loopback, its
    certificate trusted."""
    hosts = tuple(f"{host}:{forge.nginx.port}" for host in ("127.0.0.1", "git.example.test"))
    app.config.update(SOURCE_HOSTS=hosts, SOURCE_PRIVATE=True)
    monkeypatch.setenv("GIT_SSL_CAINFO", forge.certificate)
    return app
