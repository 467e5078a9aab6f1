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
    cheaper = create(api, "profiles", name="cheaper", prices={"cpu": 10, "storageGiB": None}).json
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
