"""Blueprints against profiles, as every route asks: a blueprint's fit to a profile, a render
with one, the list filters `?fitsProfile=` (blueprints) and `?fits=` (profiles), and an
instance's render and admission. A profile is named by its id and must be readable by the caller
(404 otherwise); a fit is to the room the profile's instances leave (its `usage`); the fit itself,
defaults and maximum included, is app/definitions/fit.py."""

from flask import current_app

from app.definitions import fit, proxy
from app.definitions.on_kubernetes import budget
from app.definitions.render import cluster_of, own_target, render, storage_on
from app.errors import Conflict
from app.instances import namespaces
from app.model import prices, quantities
from app.profiles.storage import store as profiles

NO_STORE = {"Cache-Control": "no-store"}  # a render holds values, secrets among them


def profile_of(profile_id, user):
    """A profile the caller may read; without an id, the caller's default profile (a 422 naming
    `profile` when they have none)."""
    return profiles.readable(profile_id, user) if profile_id is not None else profiles.default_of(user)


def limits_of(profile):
    """What a fit holds a definition to: the profile's caps (`quantities.limits`), its pod
    security level (a profile stored before levels were kept admits what it always did), its
    cluster conventions, and the prices it pays by."""
    level = profile.get("podSecurity", "privileged")
    sheet = prices.of_profile(profile, current_app.config["PRICES"])
    conventions = profile.get("cluster") or {}
    return {**quantities.limits(profile), "podSecurity": level, "cluster": conventions, "prices": sheet}


def fit_of(blueprint, args, user):
    """The fit of a stored blueprint to a profile (`GET /blueprints/{id}/fit`) on `target`: its
    pod security judged there, and a Compose blueprint's storage on a cluster its claims'."""
    blueprint_type = blueprint.get("blueprintType")
    cluster = cluster_for(blueprint_type, args, str(blueprint["_id"]))  # else a 422
    requirements = blueprint["requirements"] if cluster is None else storage_on(cluster, blueprint["requirements"])
    profile = profile_of(args.get("profile"), user)
    limits = limits_of(profile)
    if requirements is not None and (args.get("target") or own_target(blueprint_type)) == "kubernetes":
        requirements = budget.with_headroom(requirements, budget.headroom_of(limits["cluster"]))
    return fit.fit(requirements, limits, profile["usage"], args.get("target"))


def cluster_for(blueprint_type, target, instance, held=None):
    """The `Cluster` a render writes for, built once, here: what the request or the instance asks
    (`target`, `namespace`, `volumeSize`, `volumeSizes`, `routes`: render.cluster_of), the
    operator's ingress namespace and wait image, and for an instance (`held`: the namespace it
    holds, None for one admitted before instances held them, and the team that owns it or None) the
    Namespace, quota and LimitRange written before its objects. The render adds what only it knows:
    the values, and the profile's conventions and pod security."""
    config = current_app.config
    settings = {"ingress_namespaces": (config["INGRESS_NAMESPACE"],), "wait_image": config["WAIT_IMAGE"]}
    if held is not None:
        namespace, team = held
        settings |= {"namespace": namespace, "holds_namespace": namespace is not None, "team": team}
    return cluster_of(blueprint_type, target, instance, **settings)


def delivered_to(profile, environment):
    """`profile` as a render delivered to `environment` (a document; None: none) meets it: the
    proxy conventions of its cluster, each the environment's where it has one."""
    if not (environment or {}).get("proxy"):
        return profile
    cluster = profile.get("cluster") or {}
    return {**profile, "cluster": {**cluster, "proxy": proxy.conventions(cluster, environment)}}


def render_fitted(version, values, profile, maximize=None, cluster=None, secrets=(), project=None):
    """The render of `version` with `values`, fitted to `profile` (None: none) in the room it has;
    converted for the `Cluster` (`cluster_for`) where one is given; `secrets` stay secret
    whatever the schema says (an instance's); a Compose render's Traefik routers are named after
    `project`."""
    if version.get("yml") is None:
        raise Conflict("This version of the blueprint has no definition to render.")
    limits = None if profile is None else limits_of(profile)
    seconds = current_app.config["RENDER_SECONDS"]
    usage = None if profile is None else profile["usage"]
    answer = render(version, values, limits, maximize, seconds, usage, cluster, secrets, project)
    answer["cost"] = (answer["fit"] or _at_the_operators_prices(answer["requirements"]))["cost"]
    return answer


def _at_the_operators_prices(requirements):
    """A fit to no caps and no defaults, at the operator's prices: what a render without a
    profile costs."""
    return fit.fit(requirements, {**quantities.limits({}), "prices": prices.sheet(current_app.config["PRICES"])})


def refuse_reserved(namespace):
    """A 422 naming `namespace` for one the cluster keeps for itself, a profile's Gateway's among
    them: an instance there could take over the routes other teams attach to it."""
    namespaces.refuse_reserved(namespace, gateway=profiles.gateway_in(namespace))


def render_answer(version, args, user):
    """The render of `version` (a blueprint or a kept version of one) that `args` ask for, and
    its headers."""
    if "namespace" in args:
        refuse_reserved(args["namespace"])
    cluster = cluster_for(version.get("blueprintType"), args, str(version["_id"]))
    profile = profile_of(args["profile"], user) if "profile" in args else None
    return render_fitted(version, args["values"], profile, args.get("maximize"), cluster), NO_STORE


def blueprints_fitting(args, user):
    """The list filter of `fitsProfile` (a predicate of stored blueprints), None without one."""
    if "fitsProfile" not in args:
        return None
    profile = profile_of(args["fitsProfile"], user)
    limits, used = quantities.limits(profile), profile["usage"]
    return lambda blueprint: fit.fits(blueprint["requirements"], limits, used)


def profiles_fitted_by(blueprint):
    """The list filter `fits` of profiles: a predicate of stored profiles."""
    requirements = blueprint["requirements"]
    return lambda profile: fit.fits(requirements, quantities.limits(profile), profile["usage"])


def priced(docs):
    """Instances with their `cost`: their requirements at their profile's prices now (one read of
    the profiles for all of them); null without PRICES."""
    sheet = prices.sheet(current_app.config["PRICES"])
    if sheet is None:
        return [{**doc, "cost": None} for doc in docs]
    own = profiles.prices_of({doc["profile"] for doc in docs})
    return [
        {**doc, "cost": prices.cost(fit.amounts(doc["requirements"]), prices.merged(own.get(doc["profile"]), sheet))}
        for doc in docs
    ]
