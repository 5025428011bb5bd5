"""(j) levels_on_nodes: a ResourceFlavor that names a Kueue Topology has nodes carrying every
level's label.

Kueue's topology-aware scheduling counts only the nodes that carry the label of every level of
the flavor's Topology (kueue v0.19.2 pkg/util/tas/node.go l.27-31, as
xcli/plan/gke/kueue_objects.py cites it): a flavor whose pools lack one level admits nothing.
The labels are the nodes' own, from node_facts.json (each row with its source): a level no row
puts on the flavor's pools fails here, however often upstream Topologies name it.
"""

from __future__ import annotations

from tests.model.cluster import Cluster


def levels_on_nodes(cluster: Cluster) -> list[str]:
    lines = []
    for flavor in cluster.objects("ResourceFlavor"):
        spec = flavor.get("spec", {})
        name = spec.get("topologyName")
        topology = cluster.named("Topology", name) if name else None
        if topology is None:
            continue  # references_resolve reports a missing one
        wanted = spec.get("nodeLabels", {})
        pools = [p for p in cluster.pools if all(p.labels.get(k) == v for k, v in wanted.items())]
        levels = [lv["nodeLabel"] for lv in topology["spec"].get("levels", [])]
        counted = [p.name for p in pools if all(level in p.labels for level in levels)]
        if pools and not counted:
            missing = sorted({lv for p in pools for lv in levels if lv not in p.labels})
            lines.append(
                f"ResourceFlavor {flavor['metadata']['name']} spec.topologyName {name}: no node "
                f"of its pools ({', '.join(p.name for p in pools)}) carries level(s) "
                f"{', '.join(missing)}, so Kueue counts none of them"
            )
    return lines
