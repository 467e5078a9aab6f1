"""`bpctl`: the group of commands (bpctl/common.py) with every command registered, one module per
kind: account.py (login, logout, profile, completion), blueprints.py, renders.py (fit, render),
instances.py (deploy, instances, upgrade, undeploy, usage), fleet.py (upgrades of many, releases,
rollback), catalogs.py (import, export), sources.py (source), environments.py (env), teams.py (team)."""

from bpctl import (  # noqa: F401
    blueprints,
    catalogs,
    environments,
    fleet,
    instances,
    profiles,
    renders,
    signin,
    sources,
    teams,
)
from bpctl.common import cli


def main():
    cli(prog_name="bpctl")
