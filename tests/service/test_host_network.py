"""The host's network as the page tests wait for it (`support/host_network.py`): an address under
IPv6's duplicate address detection on an interface that is up counts as unsettled, and once an
engine's container is up, `settle` returns only when its addresses are usable."""

from support import host_network
from support.docker_engine import IMAGE, engine  # noqa: F401 (a fixture)

# /proc/net/if_inet6: address, index, prefix length, scope, flags (hex), interface
ROWS = {
    "fe80000000000000000000000000000a 05 40 20 c0 veth1": "veth1",  # tentative, up
    "fe80000000000000000000000000000b 06 40 20 80 veth2": None,  # usable
    "fe80000000000000000000000000000c 07 40 20 c8 veth3": None,  # detection failed: stays so
    "fe80000000000000000000000000000d 08 40 20 c0 br-down": None,  # no carrier: no detection runs
}


def test_only_tentative_addresses_of_interfaces_that_are_up_count(tmp_path, monkeypatch):
    (tmp_path / "if_inet6").write_text("\n".join(ROWS) + "\n")
    for name, state in (("veth1", "up"), ("veth2", "up"), ("veth3", "up"), ("br-down", "down")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "operstate").write_text(state + "\n")
    monkeypatch.setattr(host_network, "ADDRESSES", tmp_path / "if_inet6")
    monkeypatch.setattr(host_network, "INTERFACES", tmp_path)
    assert host_network.tentative() == {name for name in ROWS.values() if name}


def test_settle_returns_once_a_new_containers_addresses_are_usable(engine):  # noqa: F811
    engine.docker("network", "create", "settling")  # a project's network, as Compose makes one
    try:
        engine.docker("run", "-d", "--name", "settling", "--network", "settling", IMAGE, "sleep", "600")
        host_network.settle()
        assert host_network.tentative() == set()
        bridge = "br-" + engine.docker("network", "inspect", "-f", "{{.Id}}", "settling").stdout.strip()[:12]
        assert bridge in host_network.ADDRESSES.read_text()  # its bridge is up, with a usable address
    finally:
        engine.docker("rm", "-f", "settling")
        engine.docker("network", "rm", "settling")
