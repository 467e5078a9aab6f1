"""The application factory: settings, the database, the API with its resources, operations,
the web page.

The tree reads from the bottom up, each layer importing only from itself and the layers below
(tests/test_layers.py; the map is docs/design.md): errors.py, config.py, state.py; model/ (the
contract's values); definitions/ (a blueprint's content); storage/ (the database); teams/; access/
(credentials, roles, throttles); ops/ (probes, metrics, logs); http/ (the API's plumbing); jobs/
(long work); the resources instances/, blueprints/ (with its history/) and profiles/, peers that
import none of each other; imports/ (other tools' catalogs); sources/ (catalogs followed from git);
joins/ (what joins resources: a fit, an admission, every reading across them); api/ (the paths, a
module per resource); and on top web/, cli.py, migrations.py, gunicorn_worker.py and this
factory."""

import logging

from flask import Flask, has_request_context, request
from pymongo.errors import ConnectionFailure
from werkzeug.middleware.proxy_fix import ProxyFix

from app import cli, config, migrations, ops, state, web
from app.access import auth, login_throttle, oidc, request_quota
from app.access.tokens import store as tokens
from app.access.users import store as accounts
from app.api.blueprints import blp as blueprints_blp
from app.api.environments import blp as environments_blp
from app.api.formats import blp as formats_blp
from app.api.imports import blp as imports_blp
from app.api.instances import blp as instances_blp
from app.api.jobs import blp as jobs_blp
from app.api.namespaces import blp as namespaces_blp
from app.api.profiles import blp as profiles_blp
from app.api.revisions import blp as revisions_blp
from app.api.sources import blp as sources_blp
from app.api.teams import blp as teams_blp
from app.api.users import blp as users_blp
from app.blueprints.history.storage import store as revisions
from app.blueprints.storage import store as blueprints_store
from app.environments.storage import store as environments_store
from app.http import docs, idempotency, openapi, problems, response_headers
from app.http.json_provider import OrjsonProvider
from app.instances.storage import store as instances_store
from app.jobs.storage import store as jobs_store
from app.joins import across
from app.model import prices
from app.ops import logs
from app.profiles.storage import store as profiles_store
from app.sources.storage import store as sources_store
from app.storage import database
from app.teams.storage import store as teams
from app.web import sign_in

log = logging.getLogger(__name__)
UNPREPARED_BLUEPRINTS = ("ops", "docs", "web")  # they answer without the database
API = (
    profiles_blp,
    blueprints_blp,
    revisions_blp,
    instances_blp,
    namespaces_blp,
    teams_blp,
    users_blp,
    imports_blp,
    sources_blp,
    environments_blp,
    jobs_blp,
    formats_blp,
)


def create_app(settings=None, mongo_client=None):
    """`settings` override the environment's; `mongo_client` replaces the connection (tests)."""
    app = Flask(__name__)
    app.config.update(config.from_env(), **openapi.SETTINGS)
    app.config.update(settings or {})
    prices.sheet(app.config["PRICES"])  # a sheet it cannot read stops start-up
    oidc.check_settings(app.config)
    logs.configure(app.config["LOG_LEVEL"])
    app.json = OrjsonProvider(app)
    app.session_interface = auth.NoSessions()
    state.init_app(app)
    database.init_app(app, mongo_client)
    request_quota.init_app(app)
    accounts.init_app(app)
    auth.init_app(app)
    across.connect()

    openapi.init_app(app)
    for blp in API:
        app.register_blueprint(blp)
    problems.init_app(app)
    app.register_blueprint(docs.blueprint(API))
    app.register_blueprint(web.blp)
    app.register_blueprint(sign_in.blp)
    ops.init_app(app)
    response_headers.init_app(app)
    cli.init_app(app)
    if app.config["TRUSTED_PROXIES"]:
        hops = app.config["TRUSTED_PROXIES"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops, x_prefix=hops)

    app.before_request(lambda: _ensure_prepared(app))
    with app.app_context():
        _ensure_prepared(app)
    return app


def _ensure_prepared(app):
    """Once per process: the signing secret, the indexes, the admin from the environment. A
    database that is away at start-up does not stop the process: the work is done by the first
    request that finds it back, and until then requests get 503."""
    serving = has_request_context()
    if state.of(app).prepared or (serving and request.blueprint in UNPREPARED_BLUEPRINTS):
        return
    try:
        _prepare_database(app)
    except ConnectionFailure:
        log.warning("database unavailable at start-up; preparing it on a later request")
        if serving:
            raise
        return
    state.of(app).prepared = True


def _prepare_database(app):
    """Idempotent, so every worker may run it; the migrations need the pagers the stores make."""
    db = database.get_db()
    app.config["SECRET_KEY"] = app.config["SECRET_KEY"] or database.shared_secret(db)
    for module in (login_throttle, request_quota, idempotency):  # the request path's counters
        module.create_indexes(db)
    for store in (
        accounts,
        tokens,
        teams,
        revisions,
        profiles_store,
        blueprints_store,
        instances_store,
        jobs_store,
        sources_store,
        environments_store,
    ):
        store.create_indexes()
    migrations.run()
    if app.config["ADMIN_USERNAME"] and app.config["ADMIN_PASSWORD"]:
        accounts.ensure_admin(app.config["ADMIN_USERNAME"], app.config["ADMIN_PASSWORD"])
