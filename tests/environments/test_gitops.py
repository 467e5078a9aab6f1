"""A git environment (a repository Argo CD or Flux follows), on a real git server over ssh
(Debian's sshd, support/git_servers.py): each delivery one commit of the instance's folder, which
`kubectl kustomize` builds into objects Kubernetes' strict schemas accept; concurrent deliveries
both committed on a linear history; a file changed by hand seen as drift and healed; a folder
nobody delivered listed; a delete removing the folder."""

import shutil
import subprocess
import threading

import pytest

from app import definitions
from app.access import sealing
from app.definitions import kubernetes
from app.environments.storage import store as environments
from app.joins import gitops, observation
from support import on_kubernetes
from support.apps import serving
from support.git_servers import Repository, SshGit
from support.http import SocketClient
from support.jobs import all_ended, ended

pytestmark = pytest.mark.slow
WEB = "services:\n  web:\n    image: nginx:1.27\n    deploy: {resources: {limits: {memory: 64M, cpus: '0.25'}}}\n"
PATH = "clusters/prod"


@pytest.fixture
def sshd(tmp_path):
    with SshGit(tmp_path / "sshd") as server:
        yield server


@pytest.fixture
def repository(tmp_path):
    made = Repository(tmp_path, "gitops")
    made.commit("start", {"README.md": "The cluster's desired state.\n"})
    return made


@pytest.fixture
def api(socket_app, sshd):
    socket_app.config.update(ENVIRONMENT_HOSTS=(f"127.0.0.1:{sshd.port}",), ENVIRONMENT_PRIVATE=True)
    with serving(socket_app) as port:
        yield SocketClient(port)


def git(*arguments, cwd):
    return subprocess.run([shutil.which("git"), *arguments], cwd=cwd, capture_output=True, text=True, check=True).stdout


def cloned(repository, folder):
    """A fresh clone of the repository's main branch in `folder`."""
    shutil.rmtree(folder, ignore_errors=True)
    git("clone", "--quiet", str(repository.bare), str(folder), cwd=repository.bare.parent)
    return folder


def kustomized(folder):
    """What `kubectl kustomize` builds of the environment's folder (it fails on a broken layout)."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: it judges the repository's layout")
    return subprocess.run([kubectl, "kustomize", str(folder / PATH)], capture_output=True, text=True, check=True).stdout


def admit(api, profile, blueprint, name):
    body = {"name": name, "blueprint": blueprint, "profile": profile, "environment": "gitops"}
    made = api.post("/instances", json=body, user="alice")
    assert made.status == 201, made.json
    return made.json


def test_instances_are_committed_as_argo_cd_and_flux_read_them(api, socket_app, sshd, repository, tmp_path):
    body = {"name": "gitops", "kind": "git", "url": sshd.url(repository), "path": PATH, "ref": "main"}
    body |= {"deployKey": sshd.deploy_key, "knownHosts": sshd.known_hosts.read_text()}
    assert api.post("/environments", json=body, user="admin").status == 201
    profile = api.post("/profiles", json={"name": "team", "memoryCap": "4Gi", "cpuCap": "4"}, user="alice").json
    assert api.patch(f"/profiles/{profile['id']}", json={"environments": ["gitops"]}, user="admin").status == 200
    blueprint = api.post("/blueprints", json={"name": "web", "blueprintType": "compose", "yml": WEB}, user="alice")
    blueprint = blueprint.json["id"]

    shop = admit(api, profile["id"], blueprint, "shop")
    assert shop["target"] == "kubernetes" and shop["namespace"] == "shop"
    assert ended(api, shop["delivery"]["job"])["report"]["state"] == "applied"
    delivered = api.get(f"/instances/{shop['id']}", user="alice").json["delivery"]
    work = cloned(repository, tmp_path / "look")
    assert git("log", "-1", "--format=%H %s %an", cwd=work).split(" ", 1) == [
        delivered["commit"],
        "shop release 1 by alice Blueprint catalog\n",
    ]
    built = kustomized(work)
    assert "kind: Deployment" in built and "namespace: shop" in built and "kind: ResourceQuota" in built
    assert on_kubernetes.taken_by_kubernetes(built)  # with Kubernetes' own types
    with socket_app.app_context():
        assert definitions.measure(kubernetes, built)["containers"] == 1  # by the strict schemas (else Invalid)
    assert (work / PATH / "kustomization.yaml").read_text().endswith("resources:\n- shop\n")

    both = [None, None]  # two deliveries at once: both commits land, one after the other, never forced
    threads = [
        threading.Thread(target=lambda i=i, n=n: both.__setitem__(i, admit(api, profile["id"], blueprint, n)))
        for i, n in enumerate(("blog", "wiki"))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reports = [ended(api, one["delivery"]["job"])["report"] for one in both]
    assert [report["state"] for report in reports] == ["applied", "applied"], reports
    work = cloned(repository, tmp_path / "look")
    subjects = git("log", "--format=%s", cwd=work).splitlines()
    assert sorted(subjects[:2]) == ["blog release 1 by alice", "wiki release 1 by alice"]
    assert git("rev-list", "--merges", "HEAD", cwd=work) == ""
    assert (work / PATH / "kustomization.yaml").read_text().endswith("- blog\n- shop\n- wiki\n")
    kustomized(work)

    # by hand: a file of shop's folder changed, a folder nobody delivered
    deployment = next((work / PATH / "shop").glob("deployment-*.yaml"))
    deployment.write_text(deployment.read_text().replace("nginx:1.27", "nginx:latest"))
    (work / PATH / "by-hand").mkdir()
    (work / PATH / "by-hand" / "kustomization.yaml").write_text("resources: []\n")
    git("commit", "--quiet", "-am", "by hand", cwd=work)
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "a folder by hand", cwd=work)
    git("push", "--quiet", "origin", "HEAD:main", cwd=work)
    with socket_app.app_context():
        observation.observe(environments.named("gitops"))
        state = environments.named("gitops")["state"]
    seen = api.get(f"/instances/{shop['id']}", user="alice").json["observed"]
    assert seen["state"] == "drifted"
    assert [one["path"] for one in seen["drift"]] == [f"shop/{deployment.name}"]
    assert state["instances"] == {"drifted": 1, "running": 2} and state["unmanaged"][0]["folder"] == "by-hand"

    environment = api.get("/environments", user="admin").json["items"][0]
    assert api.patch(f"/environments/{environment['id']}", json={"heal": True}, user="admin").status == 200
    with socket_app.app_context():
        observation.observe(environments.named("gitops"))
    healed = api.get(f"/instances/{shop['id']}", user="alice").json["delivery"]
    assert ended(api, healed["job"])["report"]["state"] == "applied"
    work = cloned(repository, tmp_path / "look")
    assert "nginx:1.27" in (work / PATH / "shop" / deployment.name).read_text()

    assert api.delete(f"/instances/{shop['id']}", user="alice").status == 204
    all_ended()
    work = cloned(repository, tmp_path / "look")
    assert not (work / PATH / "shop").exists()
    assert git("log", "-1", "--format=%s", cwd=work) == "shop removed\n"
    assert "- shop" not in (work / PATH / "kustomization.yaml").read_text()
    kustomized(work)


def test_a_push_refused_because_the_branch_moved_is_made_again_on_its_new_head(
    socket_app, sshd, repository, tmp_path, monkeypatch
):
    """Another writer (another worker, a person) pushes between the clone and the push: the push is
    refused, and the commit is made again on the new head, both kept, never forced."""
    socket_app.config.update(ENVIRONMENT_HOSTS=(f"127.0.0.1:{sshd.port}",), ENVIRONMENT_PRIVATE=True)
    environment = {"url": sshd.url(repository), "ref": "main", "path": PATH, "knownHosts": sshd.known_hosts.read_text()}
    with socket_app.app_context():
        environment |= sealing.sealed({"deployKey": sshd.deploy_key}, "environments")
    written, moved = gitops._write, []

    def racing(root, namespace, files):  # the first time: someone else's commit lands first
        if not moved:
            moved.append(repository.commit("someone else's", {"NOTES.md": "by hand\n"}))
        written(root, namespace, files)

    monkeypatch.setattr(gitops, "_write", racing)
    with socket_app.app_context():
        commit = gitops.deliver(environment, "shop", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "shop 1")
    work = cloned(repository, tmp_path / "look")
    assert git("log", "--format=%H %s", "-2", cwd=work).splitlines() == [
        f"{commit} shop 1",
        f"{moved[0]} someone else's",
    ]
    assert (work / "NOTES.md").exists() and (work / PATH / "shop" / "configmap-c.yaml").exists()
