"""Profiles as Kubernetes' own quota objects: a `kubernetes-quota` import (a ResourceQuota and a
LimitRange make or update one profile, what has no counterpart named in the notes) and
`GET /profiles/{id}/export?format=kubernetes`, valid against Kubernetes' strict schemas and read
back as the same profile. Profiles shared with `entitledUsers`."""

import shutil
import subprocess

import pytest
import yaml
from bson import ObjectId

from app import definitions, state
from support.http import FlaskClient, assert_problem, create
from support.imports import QUOTA

Mi, Gi = 1024**2, 1024**3


def quota_import(api, document, source="cluster", user="alice", status=200):
    r = api.post("/imports", json={"format": "kubernetes-quota", "source": source, "document": document}, user=user)
    assert r.status == status, r.json
    return r.json


def test_a_resource_quota_and_a_limit_range_make_one_profile_and_say_what_they_leave_out(api):
    report = quota_import(api, QUOTA)
    [result] = report["results"]
    assert result["outcome"] == "created" and result["key"] == "team-a"
    profile = api.get(f"/profiles/{result['id']}", user="alice").json
    assert profile["name"] == "team-a" and profile["source"] == {
        "format": "kubernetes-quota",
        "name": "cluster",
        "key": "team-a",
        "rev": 1,
    }
    assert (profile["memoryCap"], profile["cpuCap"], profile["storageCap"], profile["containerCap"]) == (
        "4Gi",
        "4",
        "100Gi",
        None,
    )
    assert profile["containerDefaults"] == {"memory": "256Mi", "cpu": "500m"}  # default, not defaultRequest
    assert profile["containerMax"] == {"memory": "2Gi", "cpu": None}
    notes = "\n".join(result["notes"])
    for left_out in (
        "spec.hard.requests.memory",
        "spec.hard.pods",
        "spec.hard.count/deployments.apps",
        "spec.scopes",
        "spec.limits.0.defaultRequest",
        "spec.limits.0.min",
        "spec.limits.1: type PersistentVolumeClaim",
    ):
        assert left_out in notes, left_out
    again = quota_import(api, list(yaml.safe_load_all(QUOTA)))
    assert again["counts"]["unchanged"] == 1 and again["results"][0]["id"] == result["id"]  # a list of objects too


def test_caps_come_from_limits_else_the_plain_key_else_requests(api):
    document = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "apiVersion": "v1",
                "kind": "ResourceQuota",
                "metadata": {"name": "q"},
                "spec": {"hard": {"memory": "1.5Gi", "requests.cpu": "1500m", "requests.storage": "1e9"}},
            }
        ],
    }
    [result] = quota_import(api, document)["results"]
    profile = api.get(f"/profiles/{result['id']}", user="alice").json
    assert profile["name"] == "q" and profile["limits"]["memoryBytes"] == 3 * Gi // 2
    assert profile["limits"]["cpuMillis"] == 1500 and profile["limits"]["storageBytes"] == 10**9
    assert profile["containerDefaults"] is None and profile["containerMax"] is None


def test_an_export_is_valid_kubernetes_and_imports_as_the_same_profile(api):
    sent = create(
        api,
        "profiles",
        name="Team A (prod)",
        memoryCap="512",
        cpuCap=2.5,
        containerCap=10,
        storageCap="20",
        containerDefaults={"memory": "256Mi", "cpu": "0.25"},
        containerMax={"memory": "1G"},
        defaultProfile=True,
    ).json
    r = api.get(f"/profiles/{sent['id']}/export?format=kubernetes&namespace=team-a", user="alice")
    assert r.status == 200 and r.headers["content-type"].startswith("application/yaml")
    text = r.body.decode()
    assert "# containerCap 10" in text  # Kubernetes counts pods: said where a reader looks
    assert definitions.requirements("kubernetes", text) is not None  # Kubernetes' strict schemas accept both
    quota, limit_range = yaml.safe_load_all(text)
    assert quota["metadata"]["name"] == "team-a-prod" and quota["metadata"]["namespace"] == "team-a"
    assert quota["spec"]["hard"] == {"limits.memory": "512Mi", "limits.cpu": "2500m", "requests.storage": "20Gi"}
    assert limit_range["spec"]["limits"] == [
        {"type": "Container", "default": {"memory": "256Mi", "cpu": "250m"}, "max": {"memory": "1000000000"}}
    ]
    if kubectl := shutil.which("kubectl"):
        done = subprocess.run(
            [kubectl, "label", "--local", "-f", "-", "checked=yes", "-o", "yaml"],
            input=r.body,
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr.decode()
    assert quota["metadata"]["annotations"]["blueprints/profile-id"] == sent["id"]
    # its owner's import of the export is the same profile, not a second of that name
    [same] = quota_import(api, text)["results"]
    assert (same["outcome"], same["id"]) == ("unchanged", sent["id"])
    [changed] = quota_import(api, text.replace("limits.memory: 512Mi", "limits.memory: 1Gi"))["results"]
    assert (changed["outcome"], changed["id"]) == ("updated", sent["id"])
    back = api.get(f"/profiles/{sent['id']}", user="alice").json
    assert back["memoryCap"] == "1Gi" and back["containerCap"] == "10" and back["defaultProfile"] is True
    assert [p["id"] for p in api.get("/profiles?name=Team%20A%20(prod)", user="alice").json["items"]] == [sent["id"]]
    # anyone else's import of it makes a profile of their own, the same as the exported one
    [bobs] = quota_import(api, text, user="bob")["results"]
    assert bobs["outcome"] == "created" and bobs["id"] != sent["id"]
    theirs = api.get(f"/profiles/{bobs['id']}", user="bob").json
    assert theirs["name"] == sent["name"] and theirs["limits"] == sent["limits"] and theirs["containerCap"] == "10"
    assert theirs["defaultProfile"] is False
    bare = create(api, "profiles", memoryCap="1Gi").json
    only_quota = api.get(f"/profiles/{bare['id']}/export?format=kubernetes", user="alice").body.decode()
    [quota] = yaml.safe_load_all(only_quota)  # no defaults or maximum: no LimitRange
    annotations = {"blueprints/profile-name": "", "blueprints/profile-id": bare["id"]}
    assert quota["metadata"] == {"name": f"profile-{bare['id']}", "annotations": annotations}


def test_a_re_import_updates_the_profile_and_keeps_what_its_owner_set(api):
    [first] = quota_import(api, QUOTA)["results"]
    path = f"/profiles/{first['id']}"
    assert api.patch(path, json={"defaultProfile": True, "entitledUsers": ["bob"]}, user="alice").status == 200
    [again] = quota_import(api, QUOTA.replace("limits.memory: 4Gi", "limits.memory: 8Gi"))["results"]
    assert again["outcome"] == "updated" and again["id"] == first["id"]
    profile = api.get(path, user="alice").json
    assert profile["memoryCap"] == "8Gi" and profile["defaultProfile"] is True and profile["entitledUsers"] == ["bob"]
    bobs = quota_import(api, QUOTA, user="bob")["results"][0]  # a source is each owner's own
    assert bobs["outcome"] == "created" and bobs["id"] != first["id"]
    assert api.get(path, user="alice").json["memoryCap"] == "8Gi"


@pytest.mark.parametrize(
    "document, expected",
    [
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "one ResourceQuota"),
        (QUOTA + "---\n" + QUOTA.split("---")[0], "one ResourceQuota"),
        ({"kind": "LimitRange"}, "one ResourceQuota"),
        ("a: [", "Not valid YAML"),
    ],
)
def test_a_document_without_exactly_one_quota_is_a_422_naming_document(api, document, expected):
    problem = assert_problem(
        api.post("/imports", json={"format": "kubernetes-quota", "source": "s", "document": document}, user="alice"),
        422,
    )
    assert expected in problem["errors"]["document"][0]


@pytest.mark.parametrize(
    "change",
    [
        ("limits.memory: 4Gi", "limits.memory: lots"),  # not a quantity
        ("limits.memory: 4Gi", "limits.memory: 4000000Ti"),  # more than a cap holds
        ("  hard:\n", "  hard: [1]\n  x:\n"),  # a list where a mapping belongs
        (
            "metadata: {name: compute, namespace: team-a}",
            "metadata: {name: 3, namespace: team-a}",
        ),  # a number as a name
        ("    max: {memory: 2Gi}", "    max: {memory: {a: 1}}"),  # a mapping where a quantity belongs
        ("    default: {memory: 256Mi, cpu: 500m}", "    default: {memory: 4Gi, cpu: 500m}"),  # a default over the max
    ],
)
def test_an_object_kubernetes_or_a_profile_refuses_is_refused_with_its_place(api, change):
    [result] = quota_import(api, QUOTA.replace(*change))["results"]
    assert result["outcome"] == "refused" and result["problems"], result
    assert api.get("/profiles", user="alice").json["items"] == []


def test_what_kubernetes_admits_but_means_nothing_is_left_out_not_a_5xx(api):
    """Kubernetes' schemas admit a null item (the mutation oracle found a 5xx on it)."""
    document = QUOTA.replace("  - type: PersistentVolumeClaim\n    max: {storage: 50Gi}\n", "  - null\n")
    [result] = quota_import(api, document)["results"]
    assert result["outcome"] == "created" and "LimitRange: spec.limits.1: not an object" in "\n".join(result["notes"])


@pytest.mark.parametrize(
    "name, object_name",
    [("Team. Prod", "team.prod"), ("eu.West - 1", "eu.west-1"), ("x" * 200, "x" * 63), ("(.)", None)],
)
def test_an_exports_objects_are_named_as_kubernetes_names_them_whatever_the_profiles_name(api, name, object_name):
    """Each part of the name between dots a DNS label; one with none is named after its id."""
    made = create(api, "profiles", name=name, memoryCap="1Gi").json
    text = api.get(f"/profiles/{made['id']}/export?format=kubernetes", user="alice").body.decode()
    assert definitions.requirements("kubernetes", text) is not None  # the API server's rules for names
    [quota] = yaml.safe_load_all(text)
    assert quota["metadata"]["name"] == (object_name or f"profile-{made['id']}")


def test_the_export_checks_its_query_and_who_reads_the_profile(api):
    mine = create(api, "profiles", memoryCap="1Gi").json
    for query in ("format=helm", "", "format=kubernetes&namespace=Not_A_Label"):
        assert_problem(api.get(f"/profiles/{mine['id']}/export?{query}", user="alice"), 422)
    assert_problem(api.get(f"/profiles/{mine['id']}/export?format=kubernetes", user="bob"), 404)


def test_a_shared_profile_is_read_and_fitted_by_its_users_and_changed_only_by_its_owner(api):
    shared = create(api, "profiles", name="shared", memoryCap="1Gi", entitledUsers=["bob"]).json
    create(api, "profiles", name="private", memoryCap="1Gi")
    blueprint = create(
        api,
        "blueprints",
        user="bob",
        blueprintType="compose",
        yml="services:\n  web: {image: nginx, mem_limit: 256m}\n",
    ).json
    assert [p["name"] for p in api.get("/profiles", user="bob").json["items"]] == ["shared"]
    assert api.get(f"/blueprints/{blueprint['id']}/fit?profile={shared['id']}", user="bob").json["fits"] is True
    assert [p["name"] for p in api.get(f"/profiles?fits={blueprint['id']}", user="bob").json["items"]] == ["shared"]
    assert_problem(api.patch(f"/profiles/{shared['id']}", json={"entitledUsers": []}, user="bob"), 403)
    assert_problem(api.delete(f"/profiles/{shared['id']}", user="bob"), 403)
    assert api.patch(f"/profiles/{shared['id']}", json={"entitledUsers": ["carol", "carol"]}, user="admin").json[
        "entitledUsers"
    ] == ["carol"]
    assert_problem(api.get(f"/profiles/{shared['id']}", user="bob"), 404)
    problem = assert_problem(
        api.patch(f"/profiles/{shared['id']}", json={"entitledUsers": ["nobody"]}, user="alice"), 422
    )
    assert problem["errors"] == {"entitledUsers": ["Not every name is a user."]}


def test_a_profile_name_never_adds_objects_to_its_export(app):
    """A name written into the export's comment raw ended the comment: whoever applied the export
    created what the name held. Names with line breaks are refused now; one stored before is still
    written quoted and escaped."""
    api = FlaskClient(app)
    sent = create(api, "profiles", name="team", memoryCap="1Gi").json
    evil = "team\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: evil}\n# \u2028x"
    with app.app_context():
        state.of(app).database["profiles"].update_one({"_id": ObjectId(sent["id"])}, {"$set": {"name": evil}})
    text = api.get(f"/profiles/{sent['id']}/export?format=kubernetes", user="alice").body.decode()
    assert [doc["kind"] for doc in yaml.safe_load_all(text)] == ["ResourceQuota"]
    assert yaml.safe_load(text)["metadata"]["annotations"]["blueprints/profile-name"] == evil
    assert text.splitlines()[0].startswith('# The profile "team\\n---\\n')


def test_a_members_import_of_a_quota_naming_a_gateway_is_refused_saying_why(api):
    sent = create(api, "profiles", name="gw", storageCap="1Gi").json
    assert (
        api.patch(f"/profiles/{sent['id']}", json={"cluster": {"gateway": "infra/public"}}, user="admin").status == 200
    )
    text = api.get(f"/profiles/{sent['id']}/export?format=kubernetes", user="alice").body.decode()
    [bobs] = quota_import(api, text, user="bob")["results"]
    assert bobs["outcome"] == "refused" and bobs["problems"] == ["Only admins set a profile's `cluster.gateway`."]


def test_an_export_carries_the_teams_cluster_conventions_where_kubernetes_has_a_place(api):
    conventions = {"storageClass": "fast-ssd", "imagePullSecrets": ["regcred"]}  # a gateway is an admin's to set
    sent = create(api, "profiles", name="team", storageCap="20Gi", cluster=conventions).json
    text = api.get(f"/profiles/{sent['id']}/export?format=kubernetes", user="alice").body.decode()
    assert definitions.requirements("kubernetes", text) is not None
    [quota] = yaml.safe_load_all(text)
    hard = quota["spec"]["hard"]  # the class's claims are quoted too: where Kubernetes has a place for it
    assert hard["fast-ssd.storageclass.storage.k8s.io/requests.storage"] == hard["requests.storage"] == "20Gi"
    [bobs] = quota_import(api, text, user="bob")["results"]
    assert api.get(f"/profiles/{bobs['id']}", user="bob").json["cluster"] == conventions
    # a quota of Kubernetes' own with one storage class's storage names the team's class
    own = text.split("---")[0].replace("blueprints/cluster", "someone/else")
    [made] = quota_import(api, own, user="carol")["results"]
    assert api.get(f"/profiles/{made['id']}", user="carol").json["cluster"] == {"storageClass": "fast-ssd"}
