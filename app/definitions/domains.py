"""Domains without typing: the parameters that hold a route's host or a URL on it, marked
`"x-role": "domain"` (the imports mark Dokploy's `${domain}`, Coolify's `SERVICE_FQDN_*` and
`SERVICE_URL_*`, CapRover's `cap_root_domain`), filled from a profile's `cluster.domain` where a
render or an admission is given no value for them: the first `<instance>.<domain>`, each further
one `<its service>-<instance>.<domain>`, a `uri` one `https://` and the host. What the template
writes around the value (Dokploy's `dex-${domain}`, CapRover's `app.$$cap_root_domain`) stays."""

from app.definitions.on_kubernetes.names import label

ROLE = "domain"
ROLES = (ROLE,)


def marked(declared):
    """The names of the parameters marked as domains, in the order they are declared."""
    return [name for name, schema in (declared.get("properties") or {}).items() if schema.get("x-role") == ROLE]


def filled(declared, given, services, instance, domain):
    """`given` with each marked parameter it leaves empty set from `domain` (None: left as it is),
    the further ones named after their Compose service (`services`: a variable's, as
    `templates.Template.services` finds it), else after themselves; no two alike."""
    empty = [name for name in marked(declared) if given.get(name) in (None, "")]
    if not domain or not empty:
        return given
    values, taken = dict(given), set()
    for index, name in enumerate(empty):
        host = f"{instance}.{domain}"
        if index:
            host = f"{label(services.get(name, name))}-{host}"
        if host in taken:
            host = f"{label(name)}-{instance}.{domain}"
        taken.add(host)
        values[name] = f"https://{host}" if declared["properties"][name].get("format") == "uri" else host
    return values
