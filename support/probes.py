"""The shapes an attacker sends, as the security probe sent them: the tests and the benchmark
build them here, so that both measure the same thing."""


def alias_tree(levels=5, width=10, leaf="lol"):
    """YAML lines of a tree of aliases: each level `width` aliases of the one below, so the last
    anchor (`t{levels - 1}`) expands to width ** levels leaves."""
    lines = [f"t0: &t0 [{', '.join([leaf] * width)}]"]
    for level in range(1, levels):
        lines.append(f"t{level}: &t{level} [" + ", ".join([f"*t{level - 1}"] * width) + "]")
    return lines


def alias_tree_templates(count=6, levels=5, width=10):
    """OpenShift Templates as YAML text, one document each, each carrying its own alias tree in
    the spec of a custom resource (a kind Kubernetes' schemas do not define, so nothing of it is
    dropped): every document alone within what one definition could expand to before the
    stream-wide bound (200,000 nodes a document), together far past it."""
    documents = []
    for index in range(count):
        tree = "\n".join("    " + line for line in alias_tree(levels, width))
        documents.append(
            f"kind: Template\napiVersion: template.openshift.io/v1\nmetadata: {{name: t{index}}}\n"
            f"objects:\n- kind: Tree\n  apiVersion: example.com/v1\n  metadata: {{name: c{index}}}\n"
            f"  spec:\n{tree}\n"
        )
    return "---\n".join(documents)


def scalar_alias_definition(size=50_000, text_bytes=10_000):
    """A Kubernetes Pod of about `size` bytes whose one long argument is aliased as often as the
    text has room for: a few nodes, within any node count, but megabytes once expanded."""
    aliases = (size - text_bytes) // 4
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  annotations:\n"
        f"    a: &s {'x' * text_bytes}\n"
        "spec:\n  containers:\n  - name: app\n    image: busybox:1.36\n"
        f"    args: [{', '.join(['*s'] * aliases)}]\n"
    )
