"""GET /blueprints/{id}/yml: the definition as application/yaml, with its ETag, a 304 on a
current If-None-Match, and a file name from the blueprint's name."""

from tests.http import assert_problem, create

YML = "services:\n  web:\n    image: nginx"


def test_the_definition_as_a_download(api):
    made = create(api, "blueprints", name="web stack", blueprintType="compose", yml=YML)
    path = f"/blueprints/{made.json['id']}/yml"
    r = api.get(path, user="alice")
    assert r.status == 200 and r.body.decode() == YML
    assert r.headers["content-type"].startswith("application/yaml")
    assert r.headers["etag"] == made.headers["etag"]
    assert (
        r.headers["content-disposition"] == "attachment; filename=\"web_stack.yml\"; filename*=UTF-8''web%20stack.yml"
    )
    again = api.get(path, user="alice", headers={"If-None-Match": r.headers["etag"]})
    assert again.status == 304 and again.body == b""
    changed = api.patch(f"/blueprints/{made.json['id']}", json={"yml": YML + "\n    mem_limit: 1g"}, user="alice")
    assert api.get(path, user="alice", headers={"If-None-Match": r.headers["etag"]}).status == 200
    assert api.get(path, user="alice").headers["etag"] == changed.headers["etag"]


def test_plain_names_and_no_name(api):
    named = create(api, "blueprints", name="web-1.0", yml="a: 1").json
    assert api.get(f"/blueprints/{named['id']}/yml", user="alice").headers["content-disposition"] == (
        'attachment; filename="web-1.0.yml"'
    )
    unnamed = create(api, "blueprints", yml="a: 1").json
    disposition = api.get(f"/blueprints/{unnamed['id']}/yml", user="alice").headers["content-disposition"]
    assert disposition == f'attachment; filename="blueprint-{unnamed["id"]}.yml"'


def test_no_definition_or_not_readable_is_404(api):
    empty = create(api, "blueprints").json
    assert_problem(api.get(f"/blueprints/{empty['id']}/yml", user="alice"), 404)
    private = create(api, "blueprints", yml="a: 1").json
    assert_problem(api.get(f"/blueprints/{private['id']}/yml", user="bob"), 404)
    public = create(api, "blueprints", yml="a: 1", entitlementType="PUBLIC").json
    assert api.get(f"/blueprints/{public['id']}/yml", user="bob").status == 200


def test_versions_say_who_made_them(api):
    made = create(api, "blueprints", name="v").json
    assert (made["rev"], made["updatedBy"]) == (1, "alice")
    changed = api.patch(f"/blueprints/{made['id']}", json={"name": "w"}, user="admin").json
    assert (changed["rev"], changed["updatedBy"], changed["owner"]) == (2, "admin", "alice")
