"""A push webhook's delivery checked as its forge signs it, with the source's secret: GitHub's
`X-Hub-Signature-256` and Gitea's `X-Gitea-Signature` (an HMAC-SHA256 of the raw body), GitLab's
`X-Gitlab-Token` (the secret itself); each compared in constant time. The payload only says that
a ref moved: the sync reads the ref from the remote itself, so a replayed or forged payload
changes nothing."""

import hashlib
import hmac

PUSH_EVENTS = {
    "X-GitHub-Event": ("push",),
    "X-Gitea-Event": ("push",),
    "X-Gitlab-Event": ("Push Hook", "Tag Push Hook"),
}
DELIVERY_HEADERS = ("X-GitHub-Delivery", "X-Gitea-Delivery", "X-Gitlab-Event-UUID")


def signed(headers, body, secret):
    """Whether the delivery carries a signature of `body` (bytes) made with `secret`."""
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    if github := headers.get("X-Hub-Signature-256"):
        return hmac.compare_digest(github.encode(), f"sha256={digest}".encode())
    if gitea := headers.get("X-Gitea-Signature"):
        return hmac.compare_digest(gitea.encode(), digest.encode())
    if gitlab := headers.get("X-Gitlab-Token"):
        return hmac.compare_digest(gitlab.encode(), secret.encode())
    return False


def delivery(headers, body):
    """The delivery's id (its forge's header, else the body's digest): a repeated one is taken once."""
    found = next((headers[name] for name in DELIVERY_HEADERS if headers.get(name)), None)
    return (found or hashlib.sha256(body).hexdigest())[:100]


def is_push(headers):
    """Whether the delivery is a push (a ping or any other event is not)."""
    return any(headers.get(name) in events for name, events in PUSH_EVENTS.items())


def moves(payload, ref):
    """Whether the push `payload` moved the source's `ref` (None: the repository's default branch)."""
    pushed = payload.get("ref") if isinstance(payload, dict) else None
    if not isinstance(pushed, str):
        return False
    project = payload.get("repository") if isinstance(payload.get("repository"), dict) else {}
    project = project or (payload.get("project") if isinstance(payload.get("project"), dict) else {})
    wanted = ref or project.get("default_branch")
    return isinstance(wanted, str) and pushed in (wanted, f"refs/heads/{wanted}", f"refs/tags/{wanted}")
