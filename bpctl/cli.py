"""`bpctl`: the group of commands (bpctl/common.py) with every command registered, one module per
kind: account.py (login, logout, profile, completion), blueprints.py, renders.py (fit, render),
instances.py (deploy, instances, upgrade, undeploy, usage), fleet.py (upgrades of many, releases,
rollback), catalogs.py (import, export), sources.py (source), teams.py (team)."""

from bpctl import blueprints, catalogs, fleet, instances, profiles, renders, signin, sources, teams  # noqa: F401
from bpctl.common import cli


def main():
    cli(prog_name="bpctl")
