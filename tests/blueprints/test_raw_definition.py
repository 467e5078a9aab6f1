"""GET /blueprints/{id}/yml: the definition as application/yaml, with its ETag, a 304 on a
current If-None-Match, and a file name from the blueprint's name."""

import pytest

from support.http import assert_problem, create

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


def test_a_name_with_a_slash_names_no_folder(api):
    """`filename*` kept `/`, which a client may read as a path (`../../etc/x.yml`)."""
    named = create(api, "blueprints", name="../../etc/cron.d/x", yml="a: 1").json
    disposition = api.get(f"/blueprints/{named['id']}/yml", user="alice").headers["content-disposition"]
    assert disposition == 'attachment; filename=".._.._etc_cron.d_x.yml"'
    other = create(api, "blueprints", name="ä/b", yml="a: 1").json
    disposition = api.get(f"/blueprints/{other['id']}/yml", user="alice").headers["content-disposition"]
    assert disposition == "attachment; filename=\"__b.yml\"; filename*=UTF-8''%C3%A4_b.yml"


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


# Kept byte for byte: the white space of a definition is part of its YAML.
EXACT = [
    "x: |+\n  kept\n\n\n",  # a block scalar keeping its final newlines: trimming would change the value
    "  a: 1\n  b: 2\n",  # an indented document: trimming the first line's indentation breaks it
    "a: 1\r\nb: 2\r\n",  # CRLF line endings
    "\n\n# leading blank lines and a comment\nservices:\n  web:\n    image: nginx\n   ",
]


@pytest.mark.parametrize("text", EXACT)
def test_the_definition_is_stored_returned_and_downloaded_byte_for_byte(api, text):
    made = create(api, "blueprints", name="exact", yml=text)
    assert made.json["yml"] == text
    path = f"/blueprints/{made.json['id']}"
    assert api.get(path, user="alice").json["yml"] == text
    for raw in ("yml", "yaml"):  # /yaml is the same as /yml
        r = api.get(f"{path}/{raw}", user="alice")
        assert r.status == 200 and r.body == text.encode()
        assert r.headers["etag"] == made.headers["etag"]
    assert api.put(path, json={"yml": text}, user="alice").json["yml"] == text


def test_a_block_scalar_keeps_its_final_newlines_in_the_loaded_value():
    from app.blueprints.schemas import BlueprintSchema

    field = BlueprintSchema().fields["yml"]
    assert field.deserialize("x: |+\n  kept\n\n\n").documents == [{"x": "kept\n\n\n"}]


def test_the_yaml_alias_answers_like_yml(api):
    empty = create(api, "blueprints").json
    assert_problem(api.get(f"/blueprints/{empty['id']}/yaml", user="alice"), 404)
    private = create(api, "blueprints", yml="a: 1").json
    assert_problem(api.get(f"/blueprints/{private['id']}/yaml", user="bob"), 404)
    r = api.get(f"/blueprints/{private['id']}/yaml", user="alice")
    assert r.headers["content-disposition"] == f'attachment; filename="blueprint-{private["id"]}.yml"'
    assert (
        api.get(f"/blueprints/{private['id']}/yaml", user="alice", headers={"If-None-Match": r.headers["etag"]}).status
        == 304
    )


def test_the_diff_shows_a_change_of_white_space_only(api):
    made = create(api, "blueprints", yml="a: 1\nb: 2").json
    path = f"/blueprints/{made['id']}"
    api.patch(path, json={"yml": "a: 1\nb: 2\n"}, user="alice")
    assert api.get(f"{path}/diff", user="alice").json["yml"] == (
        "--- rev 1\n+++ rev 2\n@@ -1,2 +1,2 @@\n a: 1\n-b: 2\n\\ No newline at end of file\n+b: 2\n"
    )
    api.patch(path, json={"yml": "a: 1\r\nb: 2\n"}, user="alice")
    assert api.get(f"{path}/diff", user="alice").json["yml"] == (
        "--- rev 2\n+++ rev 3\n@@ -1,2 +1,2 @@\n-a: 1\n+a: 1\r\n b: 2\n"
    )
