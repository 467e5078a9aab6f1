"""Request bodies, checked in the contract's order: credentials (401), role (403), size (413),
content type (415), JSON syntax (400), then validation (422), on every write."""

import pytest

from support.apps import serving
from support.http import PASSWORD, SocketClient, assert_problem, basic, chunked, create, send_raw
from support.processes import Gunicorn

MIB = 1024 * 1024


def test_400_for_bad_json_and_non_objects(api):
    for data in ("{", "", "[]", '"x"', "1", "{'a': 1}", b"\xff\xfe"):
        r = api.post("/profiles", data=data, headers={"Content-Type": "application/json"}, user="alice")
        assert_problem(r, 400)


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded", "application/xml"])
def test_415_for_non_json(api, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    assert_problem(api.post("/blueprints", data="{}", headers=headers, user="alice"), 415)


def test_json_suffix_media_types_are_json(api):
    r = api.post("/profiles", data="{}", headers={"Content-Type": "application/merge-patch+json"}, user="alice")
    assert r.status == 201


def test_413_for_bodies_over_1_mib(api):
    body = '{"description": "' + "x" * (1024 * 1024) + '"}'
    assert_problem(api.post("/blueprints", data=body, headers={"Content-Type": "application/json"}, user="alice"), 413)


def test_checks_run_in_the_contract_order(api):
    huge = "x" * (1024 * 1024 + 1)
    assert api.post("/profiles", data=huge, headers={"Content-Type": "text/plain"}).status == 401
    assert api.post("/profiles", data=huge, headers={"Content-Type": "text/plain"}, user="victor").status == 403
    assert api.post("/profiles", data=huge, headers={"Content-Type": "text/plain"}, user="alice").status == 413
    assert api.post("/profiles", data="{", headers={"Content-Type": "text/plain"}, user="alice").status == 415
    assert api.post("/profiles", data="{", headers={"Content-Type": "application/json"}, user="alice").status == 400


def test_422_names_every_bad_field(api):
    r = api.post(
        "/profiles",
        json={"memoryCap": "lots", "cpuCap": {}, "defaultProfile": "true", "id": "x", "colour": "red", "name": ""},
        user="alice",
    )
    body = assert_problem(r, 422)
    assert set(body["errors"]) == {"memoryCap", "cpuCap", "defaultProfile", "id", "colour", "name"}
    assert body["errors"]["id"] == ["Read-only field."]


def test_422_for_unsafe_or_huge_yaml(api):
    bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\n" + "\n".join(
        f"{c}: &{c} [" + ",".join([f"*{p}"] * 10) + "]" for p, c in zip("abcdefg", "bcdefgh", strict=True)
    )
    for yml in (bomb, "!!python/object/apply:os.system ['true']", "a: " + "x" * 300_000):
        body = assert_problem(api.post("/blueprints", json={"yml": yml}, user="alice"), 422)
        assert list(body["errors"]) == ["yml"]


def test_update_body_checks(api):
    path = f"/profiles/{create(api, 'profiles').json['id']}"
    assert_problem(api.patch(path, data="{}", headers={"Content-Type": "text/plain"}, user="alice"), 415)
    assert_problem(api.patch(path, data="[1]", headers={"Content-Type": "application/json"}, user="alice"), 400)
    assert_problem(api.put(path, data="{", headers={"Content-Type": "application/json"}, user="alice"), 400)


def test_deep_json_is_refused(api):
    body = '{"name": ' + "[" * 40 + "]" * 40 + "}"
    headers = {"Content-Type": "application/json"}
    problem = assert_problem(api.post("/profiles", data=body, headers=headers, user="alice"), 400)
    assert "nested deeper" in problem["detail"]


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1E+999", "123456789012345678901234567890e300"])
@pytest.mark.parametrize("field", ["storageCap", "memoryCap", "cpuCap", "containerCap"])
def test_a_number_beyond_a_double_is_valid_json_and_a_422_naming_the_field(api, number, field):
    data = f'{{"{field}": {number}}}'
    r = api.post("/profiles", data=data, headers={"Content-Type": "application/json"}, user="alice")
    assert list(assert_problem(r, 422)["errors"]) == [field]


@pytest.mark.parametrize("data", ['{"name": NaN}', '{"name": Infinity}', '{"name": "\\ud800"}', "[" * 2000])
def test_what_json_does_not_allow_stays_a_400(api, data):
    r = api.post("/profiles", data=data, headers={"Content-Type": "application/json"}, user="alice")
    assert_problem(r, 400)


@pytest.fixture(params=["werkzeug", "gunicorn"])
def server(request, tmp_path):
    """(port, Authorization) of the app on a real socket: Werkzeug's threaded server (the socket
    tests') and gunicorn as operators run it, each with its own way of reading a chunked body."""
    if request.param == "werkzeug":
        with serving(request.getfixturevalue("socket_app")) as port:
            yield port, basic("alice")
        return
    gunicorn = Gunicorn(DATA_DIR=tmp_path / "data", ADMIN_USERNAME="admin", ADMIN_PASSWORD=PASSWORD, WEB_CONCURRENCY=1)
    try:
        yield gunicorn.start().port, basic("admin")
    finally:
        gunicorn.stop()


@pytest.mark.slow
def test_a_body_over_the_limit_is_refused_whole_however_it_is_sent(server):
    port, auth = server

    def head(path, *extra):
        return "\n".join(
            [
                f"POST {path} HTTP/1.1",
                "Host: 127.0.0.1",
                f"Authorization: {auth}",
                "Content-Type: application/json",
                *extra,
            ]
        )

    streamed = head("/blueprints", "Transfer-Encoding: chunked")
    over = b'{"name": "over"}'.ljust(MIB + MIB // 10)  # valid JSON, then spaces past the limit
    assert_problem(send_raw(port, streamed, chunked(over)), 413)
    assert_problem(send_raw(port, streamed, chunked(b'{"description": "' + b"x" * 5 * MIB + b'"}')), 413)
    assert_problem(send_raw(port, head("/blueprints", f"Content-Length: {len(over)}"), over), 413)
    at_the_limit = b'{"name": "at the limit"}'.ljust(MIB)
    assert send_raw(port, streamed, chunked(at_the_limit)).status == 201
    both = head("/blueprints", "Content-Length: 16", "Transfer-Encoding: chunked")
    assert send_raw(port, both, chunked(over)).status in (400, 413)
    short = head("/blueprints", "Content-Length: 10", "Connection: close")  # it declares '{"name": "'
    assert_problem(send_raw(port, short, over), 400)
    document = b'{"format": "native", "source": "s", "document": "' + b"x" * 17 * MIB + b'"}'
    assert_problem(send_raw(port, head("/imports", "Transfer-Encoding: chunked"), chunked(document)), 413)
    listed = SocketClient(port).get("/blueprints", headers={"Authorization": auth}).json["items"]
    assert [item["name"] for item in listed] == ["at the limit"]  # nothing read in part was stored
