"""What a client needs to sign in through the identity provider, without credentials: its issuer,
the client id to ask for (bpctl's own where the operator set one) and the audience its access
tokens must name. All null without single sign-on."""

from flask import Blueprint, current_app, jsonify

blp = Blueprint("sign_in", __name__)


@blp.route("/sso")
def sso():
    config = current_app.config
    issuer = config["OIDC_ISSUER"]
    return jsonify(
        issuer=issuer,
        clientId=config["OIDC_CLIENT_ID"],
        cliClientId=issuer and (config["OIDC_CLI_CLIENT_ID"] or config["OIDC_CLIENT_ID"]),
        audience=issuer and (config["OIDC_AUDIENCE"] or config["OIDC_CLIENT_ID"]),
    )
