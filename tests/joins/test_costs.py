"""What it costs: the operator's price sheet (PRICES) and a profile's own prices turn what a fit
and a render count into money a month; null where there are no prices or an amount is unknown."""

from decimal import Decimal

import pytest

from app import create_app
from app.model import prices
from support.apps import settings
from support.http import assert_problem, create

SHEET = "cpu=20, memoryGiB=5, storageGiB=0.1, currency=EUR"
# 2 replicas of 256 MiB and 0.5 CPU, a 10 GiB claim: 0.5 GiB x 5 + 1 CPU x 20 + 10 GiB x 0.1 = 23.50
WEB = (
    "services:\n  web:\n    image: nginx\n    deploy:\n      replicas: 2\n      resources:\n"
    "        limits: {memory: 256m, cpus: '0.5'}\n    storage_opt: {size: 5G}\n"
)
LOOSE = "services:\n  web:\n    image: nginx\n    mem_limit: 64m\n"  # no cpu declared


@pytest.fixture
def priced(app):
    app.config.update(PRICES=SHEET)


def fit_cost(api, blueprint, profile):
    answer = api.get(f"/blueprints/{blueprint['id']}/fit?profile={profile['id']}", user="alice")
    assert answer.status == 200, answer.json
    return answer.json["cost"]


def test_a_fit_costs_what_it_requires_at_the_profiles_prices(api, priced):
    web = create(api, "blueprints", name="web", blueprintType="compose", yml=WEB).json
    team = create(api, "profiles", name="team").json
    assert fit_cost(api, web, team) == {"monthly": 23.5, "currency": "EUR"}
    cheaper = create(api, "profiles", name="cheaper").json
    own_prices = {"prices": {"cpu": 10, "storageGiB": None}}  # an admin's to set
    cheaper = api.patch(f"/profiles/{cheaper['id']}", json=own_prices, user="admin").json
    assert cheaper["prices"] == {"cpu": 10, "storageGiB": None}
    assert fit_cost(api, web, cheaper) == {"monthly": 13.5, "currency": "EUR"}  # its own cpu, PRICES' others
    rendered = api.post(f"/blueprints/{web['id']}/render", json={"profile": cheaper["id"]}, user="alice").json
    assert rendered["cost"] == rendered["fit"]["cost"] == {"monthly": 13.5, "currency": "EUR"}
    alone = api.post(f"/blueprints/{web['id']}/render", json={}, user="alice").json
    assert alone["fit"] is None and alone["cost"] == {"monthly": 23.5, "currency": "EUR"}  # at PRICES alone


def test_an_amount_nobody_declares_has_no_price(api, priced):
    loose = create(api, "blueprints", name="loose", blueprintType="compose", yml=LOOSE).json
    bare = create(api, "profiles", name="bare").json
    assert fit_cost(api, loose, bare) is None
    assert api.post(f"/blueprints/{loose['id']}/render", json={}, user="alice").json["cost"] is None
    defaulted = create(api, "profiles", name="defaulted", containerDefaults={"memory": "1Gi", "cpu": "250m"}).json
    assert fit_cost(api, loose, defaulted) == {"monthly": 5.31, "currency": "EUR"}  # 64 MiB x 5 + 0.25 CPU x 20


def test_without_prices_nothing_costs_and_a_profile_cannot_set_its_own(api):
    web = create(api, "blueprints", name="web", blueprintType="compose", yml=WEB).json
    team = create(api, "profiles", name="team").json
    assert fit_cost(api, web, team) is None
    assert api.post(f"/blueprints/{web['id']}/render", json={}, user="alice").json["cost"] is None
    refused = api.post("/profiles", json={"name": "own", "prices": {"cpu": 10}}, user="alice")
    assert "prices" in assert_problem(refused, 422)["errors"]


def test_a_profiles_price_is_a_number_from_zero(api, priced):
    for wrong in ({"cpu": -1}, {"cpu": "ten"}, {"memoryGiB": 1e10}, {"gpu": 1}):
        refused = api.post("/profiles", json={"name": "wrong", "prices": wrong}, user="alice")
        assert list(assert_problem(refused, 422)["errors"]) == [f"prices.{next(iter(wrong))}"], wrong


def test_the_price_sheet_is_read_at_start_up_and_refused_whole():
    with pytest.raises(ValueError, match="currency"):
        prices.sheet("cpu=1")
    for sheet in ("cpu=1,currency=EUR,cpu=2", "gpu=1,currency=EUR", "cpu=-1,currency=EUR", "cpu=nan,currency=EUR"):
        with pytest.raises(ValueError, match="PRICES"):
            prices.sheet(sheet)
    assert prices.sheet(" ") is None
    assert prices.sheet("currency=USD,memoryGiB=2") == {
        "cpu": Decimal(0),
        "memoryGiB": Decimal(2),
        "storageGiB": Decimal(0),
        "currency": "USD",
    }
    with pytest.raises(ValueError, match="PRICES"):
        create_app(settings(PRICES="cpu=1,currency=euro"))


def test_a_cost_is_rounded_to_cents_half_up_once_from_the_sum():
    sheet = prices.sheet("cpu=0.05,memoryGiB=0,storageGiB=0,currency=EUR")
    assert prices.cost({"cpuMillis": 100}, sheet) == {"monthly": 0.01, "currency": "EUR"}  # 0.005
    assert prices.cost({"cpuMillis": 99}, sheet) == {"monthly": 0.0, "currency": "EUR"}  # 0.00495
    assert prices.cost({"cpuMillis": None, "memoryBytes": None}, sheet) is None  # a priced amount unknown
    assert prices.cost({"cpuMillis": 1}, None) is None


def admit(api, blueprint, profile, name, user="alice", **body):
    sent = {"name": name, "blueprint": blueprint["id"], "profile": profile["id"], **body}
    answer = api.post("/instances", json=sent, user=user)
    assert answer.status == 201, answer.json
    return answer.json


def test_an_instance_and_its_profile_cost_what_they_use_at_the_prices_now(api, app, priced):
    web = create(api, "blueprints", name="web", blueprintType="compose", yml=WEB).json
    team = create(api, "profiles", name="team").json
    assert team["usage"]["monthly"] == 0
    shop = admit(api, web, team, "shop")
    assert shop["cost"] == {"monthly": 23.5, "currency": "EUR"}
    admit(api, web, team, "shop2")
    assert api.get(f"/profiles/{team['id']}", user="alice").json["usage"]["monthly"] == 47.0
    api.patch(f"/profiles/{team['id']}", json={"prices": {"cpu": 10}}, user="admin")
    assert api.get(f"/instances/{shop['id']}", user="alice").json["cost"]["monthly"] == 13.5  # priced when read
    listed = api.get(f"/instances?profile={team['id']}", user="alice").json["items"]
    assert [item["cost"]["monthly"] for item in listed] == [13.5, 13.5]
    assert api.get(f"/profiles/{team['id']}", user="alice").json["usage"]["monthly"] == 27.0
    app.config.update(PRICES="")
    assert api.get(f"/instances/{shop['id']}", user="alice").json["cost"] is None
    assert api.get(f"/profiles/{team['id']}", user="alice").json["usage"]["monthly"] is None


def test_a_teams_spend_sums_the_profiles_it_owns_and_pages_them(api, priced):
    assert api.post("/teams", json={"name": "pay"}, user="admin").status == 201
    nothing = api.get("/teams/pay/spend", user="admin")  # a team that owns no profile yet
    assert nothing.status == 200 and (nothing.json["monthly"], nothing.json["profiles"]) == (0.0, [])
    assert api.put("/teams/pay/members/alice", json={"role": "member"}, user="admin").status == 200
    assert api.put("/teams/pay/members/carol", json={"role": "viewer"}, user="admin").status == 200
    web = create(api, "blueprints", name="web", blueprintType="compose", yml=WEB).json
    capped = create(api, "profiles", name="capped", owner="team:pay", memoryCap="4Gi", cpuCap="4", storageCap="100Gi")
    loose = create(api, "profiles", name="loose", owner="team:pay", memoryCap="4Gi").json
    loose = api.patch(f"/profiles/{loose['id']}", json={"prices": {"cpu": 10}}, user="admin").json
    create(api, "profiles", name="alices", memoryCap="1Gi")  # hers, not the team's
    admit(api, web, capped.json, "one")
    admit(api, web, loose, "two")
    admit(api, web, loose, "three")
    first = api.get("/teams/pay/spend?limit=1", user="carol")
    assert first.status == 200, first.json
    assert first.json["monthly"] == 23.5 + 2 * 13.5 and first.json["currency"] == "EUR"
    assert first.json["profiles"] == [{"id": loose["id"], "name": "loose", "monthly": 27.0, "capMonthly": None}]
    second = api.get(f"/teams/pay/spend?limit=1&cursor={first.json['next']}", user="carol").json
    # 4 GiB x 5 + 4 CPU x 20 + 100 GiB x 0.1
    assert second["profiles"] == [{"id": capped.json["id"], "name": "capped", "monthly": 23.5, "capMonthly": 110.0}]
    assert second["next"] is None
    assert_problem(api.get("/teams/pay/spend", user="bob"), 404)  # not in it
    assert api.get("/teams/pay/spend", user="admin").json["monthly"] == 50.5


@pytest.mark.parametrize("app", ["socket"], indirect=True)  # mongomock is not a concurrent database
def test_a_profiles_monthly_is_exact_under_concurrent_admissions(api, priced):
    from concurrent.futures import ThreadPoolExecutor

    web = create(api, "blueprints", name="web", blueprintType="compose", yml=WEB).json
    team = create(api, "profiles", name="team", memoryCap="3Gi").json  # room for 6 of 12 (512 MiB each)
    with ThreadPoolExecutor(6) as pool:
        statuses = list(
            pool.map(
                lambda n: (
                    api.post(
                        "/instances",
                        json={"name": f"i{n}", "blueprint": web["id"], "profile": team["id"]},
                        user="alice",
                    ).status
                ),
                range(12),
            )
        )
    assert sorted(statuses) == [201] * 6 + [409] * 6
    assert api.get(f"/profiles/{team['id']}", user="alice").json["usage"]["monthly"] == 6 * 23.5
