"""What a team spends: each profile it owns, what its usage costs a month and what its caps would,
and the sum over all of them (the usages priced, summed, then rounded once)."""

from decimal import Decimal

from flask import current_app

from app.model import prices, quantities
from app.model.accounts import team_scope
from app.profiles.storage import store as profiles
from app.teams.storage import store as teams

CAPPED = ("memoryBytes", "cpuMillis", "storageBytes")  # the caps a price applies to


def spend(name, user, args):
    """(the body of `GET /teams/{name}/spend`, the Position of the next page of profiles or None),
    for the team's members and admins (404 for anyone else)."""
    teams.readable(name, user)
    setting = current_app.config["PRICES"]
    owner = team_scope(name)
    page, position = profiles.list(user, {**args, "owner": owner})
    total = [
        prices.exact(profile["usage"], prices.of_profile(profile, setting)) for profile in profiles.owned_by(owner)
    ]
    sheet = prices.sheet(setting)
    body = {
        "profiles": [_line(profile, setting) for profile in page],
        "monthly": None if sheet is None else prices.rounded(sum(total, Decimal(0))),
        "currency": None if sheet is None else sheet["currency"],
    }
    return body, position


def _line(profile, setting):
    """A profile's line: what its usage costs, and what its caps would (null where a priced cap is unset)."""
    sheet = prices.of_profile(profile, setting)
    spent, capped = prices.cost(profile["usage"], sheet), prices.cost(_caps(profile), sheet)
    return {
        "_id": profile["_id"],
        "name": profile["name"],
        "monthly": spent and spent["monthly"],
        "capMonthly": capped and capped["monthly"],
    }


def _caps(profile):
    limits = quantities.limits(profile)
    return {key: limits[key] for key in CAPPED}
