"""The ports the tests start their servers on (`support/ports.py`): free, and never one the kernel
hands a client's connection or a bind to port 0 in the meantime."""

import socket

from support.ports import EPHEMERAL, free_port


def test_a_free_port_is_outside_the_ephemeral_range_and_can_be_listened_on():
    low, high = map(int, EPHEMERAL.read_text().split())
    chosen = {free_port() for _ in range(20)}
    assert len(chosen) > 1
    for port in chosen:
        assert not low <= port <= high and port >= 1024
        with socket.socket() as server:
            server.bind(("127.0.0.1", port))
            server.listen()


def test_a_port_in_use_is_not_chosen(monkeypatch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port()))
        port = taken.getsockname()[1]
        monkeypatch.setattr("support.ports._chooser.sample", lambda outside, k: [port, *outside[:k]])
        assert free_port() != port
