"""A profile's usage under random sequences of concurrent admissions, upgrades and deletes, over a
real socket on the embedded database (a hypothesis state machine): after every step, `usage` is
the sum of what its instances' requirements say and their count, and no cap is exceeded; each
instance's rendered definition is one Docker Compose accepts."""

import threading

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from support import compose_oracle
from support.http import create

pytestmark = pytest.mark.slow
TEMPLATE = "services:\n  app:\n    image: nginx\n    deploy:\n      replicas: ${REPLICAS}\n"
PARAMETERS = {
    "type": "object",
    "properties": {"REPLICAS": {"type": "integer", "default": 1, "minimum": 0, "maximum": 6}},
}
CAPS = {"memoryCap": "1Gi", "cpuCap": "1", "containerCap": "12", "containerDefaults": {"memory": "128Mi", "cpu": "50m"}}
COUNTED = ("memoryBytes", "cpuMillis", "containers", "storageBytes")


def concurrently(calls):
    """Run the calls at once, each in its thread; their answers, in order."""
    answers = [None] * len(calls)

    def run(index, call):
        answers[index] = call()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.parametrize("app", ["socket"], indirect=True)
def test_usage_is_the_sum_of_the_instances_whatever_the_interleaving(api):
    blueprint = create(api, "blueprints", name="app", blueprintType="compose", yml=TEMPLATE, parameters=PARAMETERS).json
    profile = create(api, "profiles", name="team", **CAPS).json
    names = iter(range(10**6))

    class Usage(RuleBasedStateMachine):
        @rule(replicas=st.lists(st.integers(0, 6), min_size=1, max_size=6))
        def admit(self, replicas):
            calls = [
                lambda n=n: api.post(
                    "/instances",
                    json={
                        "name": f"i{next(names)}",
                        "blueprint": blueprint["id"],
                        "profile": profile["id"],
                        "values": {"REPLICAS": n},
                    },
                    user="alice",
                )
                for n in replicas
            ]
            assert {r.status for r in concurrently(calls)} <= {201, 409}

        # What to do is drawn before it is known which instances exist (how many concurrent
        # admissions got in is not the generator's to depend on): a pick is an index into them.
        @rule(
            picks=st.lists(st.tuples(st.integers(0, 10**6), st.booleans(), st.integers(0, 6)), min_size=1, max_size=4)
        )
        def upgrade_and_delete(self, picks):
            items = instances()
            if not items:
                return
            chosen = {items[index % len(items)]["id"]: (delete, replicas) for index, delete, replicas in picks}
            calls = []
            for id_, (delete, replicas) in chosen.items():
                if delete:
                    calls.append(lambda i=id_: api.delete(f"/instances/{i}", user="alice"))
                else:
                    values, path = {"values": {"REPLICAS": replicas}}, f"/instances/{id_}/upgrade"
                    calls.append(lambda p=path, v=values: api.post(p, json=v, user="alice"))
            assert {r.status for r in concurrently(calls)} <= {200, 204, 409}

        @invariant()
        def usage_is_the_sum(self):
            stored = api.get(f"/profiles/{profile['id']}", user="alice").json
            items = instances()
            summed = {key: sum(item["requirements"][key] for item in items) for key in COUNTED}
            unpriced = {"monthly": None, "currency": None, "observed": None}
            assert stored["usage"] == {**summed, "instances": len(items), **unpriced}
            limits = stored["limits"]
            assert summed["memoryBytes"] <= limits["memoryBytes"] and summed["cpuMillis"] <= limits["cpuMillis"]
            assert summed["containers"] <= limits["containers"]

        def teardown(self):
            for item in instances():
                text = api.get(f"/instances/{item['id']}/yml", user="alice").body.decode()
                assert compose_oracle.config(text)[0], text
                assert api.delete(f"/instances/{item['id']}", user="alice").status == 204

    def instances():
        return api.get(f"/instances?profile={profile['id']}&limit=200", user="alice").json["items"]

    run_state_machine_as_test(
        Usage,
        settings=settings(
            max_examples=15, stateful_step_count=8, deadline=None, suppress_health_check=list(HealthCheck)
        ),
    )
