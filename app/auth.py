"""Who is calling, and may they: the one place where credentials and roles are checked.

Views declare the least role they need with `login_required(role=...)`; a role implies the ones
below it, so "member" admits admins too.
"""
from flask_httpauth import HTTPBasicAuth

from app import errors
from app.users import storage

IMPLIED_ROLES = {"viewer": ["viewer"], "member": ["viewer", "member"], "admin": ["viewer", "member", "admin"]}

basic = HTTPBasicAuth(realm="blueprints")
login_required = basic.login_required


@basic.verify_password
def _verify(username, password):
    return storage.authenticate(username, password)


@basic.get_user_roles
def _roles(user):
    return IMPLIED_ROLES[user["role"]]


@basic.error_handler
def _error(status):
    return errors.problem(status)


def current_user():
    return basic.current_user()


def is_admin(user):
    return user["role"] == "admin"
