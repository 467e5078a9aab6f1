"""The embedded server's start (app/storage/embedded.py): on a port of its own, and never another
server's taken for it."""

import socket

import pytest

from app.storage import embedded
from support.ports import free_port

pytestmark = pytest.mark.socket


def test_a_port_taken_between_its_choice_and_the_start_is_left_for_another(tmp_path, monkeypatch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port()))
        taken.listen()
        port = taken.getsockname()[1]
        chosen = iter([port, free_port()])
        monkeypatch.setattr(embedded, "free_port", lambda: next(chosen))
        process, uri = embedded.launch(str(tmp_path))
    try:
        assert f":{port}/" not in uri and embedded._serves(uri, str(tmp_path))
    finally:
        process.kill()
        process.wait()


def test_a_port_another_server_answers_on_is_never_taken_for_the_new_one(tmp_path):
    first, uri = embedded.launch(str(tmp_path / "one"), free_port())
    try:
        port = int(uri.split(":")[2].split("/")[0])
        with pytest.raises(RuntimeError, match="did not start"):
            embedded.launch(str(tmp_path / "two"), port)
    finally:
        first.kill()
        first.wait()
