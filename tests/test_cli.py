"""`flask users ...`: account management from the shell, and the admin from the environment."""

import mongomock
import pytest

from app import create_app
from app.access.users import store as users
from app.storage.database import get_db
from support.apps import settings


@pytest.fixture
def app():
    return create_app(settings(), mongo_client=mongomock.MongoClient(tz_aware=True))


def test_users_create_prompts_for_the_password(app):
    runner = app.test_cli_runner()
    result = runner.invoke(
        args=["users", "create", "root", "--role", "admin"], input="long enough pw\nlong enough pw\n"
    )
    assert result.exit_code == 0, result.output
    with app.app_context():
        user = users.authenticate("root", "long enough pw")
        assert user["role"] == "admin" and "long enough pw" not in str(user)
        assert users.authenticate("root", "wrong password") is None


def test_users_create_refuses_bad_input_and_taken_names(app):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["users", "create", "ab"], input="long enough pw\nlong enough pw\n").exit_code == 1
    assert runner.invoke(args=["users", "create", "carol"], input="short\nshort\n").exit_code == 1
    assert runner.invoke(args=["users", "create", "carol"], input="long enough pw\nlong enough pw\n").exit_code == 0
    taken = runner.invoke(args=["users", "create", "carol"], input="long enough pw\nlong enough pw\n")
    assert taken.exit_code == 1 and "taken" in taken.output


def test_admin_from_the_environment_is_created_once():
    client = mongomock.MongoClient(tz_aware=True)
    env = settings(ADMIN_USERNAME="boss", ADMIN_PASSWORD="first password")
    app = create_app(env, mongo_client=client)
    create_app({**env, "ADMIN_PASSWORD": "second password"}, mongo_client=client)
    with app.app_context():
        assert users.authenticate("boss", "first password")["role"] == "admin"
        assert users.authenticate("boss", "second password") is None
        assert get_db().users.count_documents({}) == 1


def test_an_invalid_admin_from_the_environment_stops_start_up():
    with pytest.raises(Exception, match="password"):
        create_app(
            settings(ADMIN_USERNAME="boss", ADMIN_PASSWORD="short"), mongo_client=mongomock.MongoClient(tz_aware=True)
        )


def test_list_set_password_set_role_disable_enable(app):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["users", "create", "dave"], input="first password\nfirst password\n").exit_code == 0
    assert runner.invoke(args=["users", "list"]).output == "dave\tmember\tactive\n"

    changed = runner.invoke(args=["users", "set-password", "dave"], input="second password\nsecond password\n")
    assert changed.exit_code == 0
    with app.app_context():
        assert users.authenticate("dave", "first password") is None
        assert users.authenticate("dave", "second password") is not None

    assert runner.invoke(args=["users", "set-role", "dave", "viewer"]).exit_code == 0
    assert runner.invoke(args=["users", "set-role", "dave", "root"]).exit_code == 2
    assert runner.invoke(args=["users", "disable", "dave"]).exit_code == 0
    assert runner.invoke(args=["users", "list"]).output == "dave\tviewer\tdisabled\n"
    with app.app_context():
        assert users.authenticate("dave", "second password") is None
    assert runner.invoke(args=["users", "enable", "dave"]).exit_code == 0
    with app.app_context():
        assert users.authenticate("dave", "second password")["role"] == "viewer"


def test_commands_on_unknown_users_fail_cleanly(app):
    runner = app.test_cli_runner()
    for args in (["disable", "ghost"], ["set-role", "ghost", "admin"]):
        result = runner.invoke(args=["users", *args])
        assert result.exit_code == 1 and "no user 'ghost'" in result.output
    short = runner.invoke(args=["users", "set-password", "ghost"], input="short\nshort\n")
    assert short.exit_code == 1
