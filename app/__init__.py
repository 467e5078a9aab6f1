"""The application factory."""
from flask import Flask

from app import api, cli, config, database, docs, idempotency, throttle
from app.blueprints.routes import blp as blueprints_blp
from app.blueprints.storage import store as blueprints_store
from app.profiles.routes import blp as profiles_blp
from app.profiles.storage import store as profiles_store
from app.users import storage as users
from app.users import tokens
from app.users.routes import blp as users_blp


def create_app(settings=None, mongo_client=None):
    """`settings` override the environment's; `mongo_client` replaces the connection (tests)."""
    app = Flask(__name__)
    app.config.update(config.from_env(), **api.SPEC, **docs.SETTINGS)
    app.config.update(settings or {})
    app.json = api.OrjsonProvider(app)
    database.init_app(app, mongo_client)

    rest = api.Api(app)
    rest.spec.components.security_scheme("basicAuth", {"type": "http", "scheme": "basic"})
    rest.spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
    rest.spec.options["security"] = [{"basicAuth": []}, {"bearerAuth": []}]
    for blp in (profiles_blp, blueprints_blp, users_blp):
        rest.register_blueprint(blp)
    rest.spec.components.schemas.pop("PaginationMetadata", None)  # flask-smorest's; lists use cursors
    app.register_blueprint(docs.blp)
    cli.init_app(app)

    with app.app_context():
        _prepare_database(app)
    return app


def _prepare_database(app):
    """Idempotent, so every worker may run it: the signing secret, indexes, the admin from the env."""
    db = database.get_db()
    app.config["SECRET_KEY"] = app.config["SECRET_KEY"] or database.shared_secret(db)
    for module in (users, tokens, throttle, idempotency):
        module.create_indexes(db)
    profiles_store.create_indexes()
    blueprints_store.create_indexes()
    if app.config["ADMIN_USERNAME"] and app.config["ADMIN_PASSWORD"]:
        users.ensure_admin(app.config["ADMIN_USERNAME"], app.config["ADMIN_PASSWORD"])
