"""Blueprints against profiles, as every route asks: a blueprint's fit to a profile, a render
with one, and the list filters `?fitsProfile=` (blueprints) and `?fits=` (profiles). A profile is
named by its id and must be readable by the caller (404 otherwise); the fit itself, defaults and
maximum included, is app/definitions/fit.py."""

from flask import current_app

from app import definitions
from app.definitions import fit
from app.definitions.render import render
from app.errors import Conflict
from app.model import quantities
from app.profiles.storage import store as profiles

NO_STORE = {"Cache-Control": "no-store"}  # a render holds values, secrets among them


def limits_of(profile_id, user):
    """The normalized caps, defaults and maximum of a profile the caller may read; without an
    id, of the caller's default profile (a 422 naming `profile` when they have none)."""
    profile = profiles.get(profile_id, user) if profile_id is not None else profiles.default_of(user)
    return quantities.limits(profile)


def fit_of(blueprint, profile_id, user):
    """The fit of a stored blueprint to a profile (`GET /blueprints/{id}/fit`)."""
    return fit.fit(definitions.requirements_of(blueprint), limits_of(profile_id, user))


def rendered(version, args, user):
    """The render of `version` (a blueprint or a kept version of one) that `args` ask for, and
    its headers."""
    if version.get("yml") is None:
        raise Conflict("This version of the blueprint has no definition to render.")
    limits = limits_of(args["profile"], user) if "profile" in args else None
    seconds = current_app.config["RENDER_SECONDS"]
    return render(version, args["values"], limits, args.get("maximize"), seconds), NO_STORE


def blueprints_fitting(args, user):
    """The list filter of `fitsProfile` (a predicate of stored blueprints), None without one."""
    if "fitsProfile" not in args:
        return None
    limits = limits_of(args["fitsProfile"], user)
    return lambda blueprint: fit.fits(definitions.requirements_of(blueprint), limits)


def profiles_fitted_by(blueprint):
    """The list filter `fits` of profiles: a predicate of stored profiles."""
    requirements = definitions.requirements_of(blueprint)
    return lambda profile: fit.fits(requirements, quantities.limits(profile))
