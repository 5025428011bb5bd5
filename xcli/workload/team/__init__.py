"""Teams on a GKE cluster: a namespace, a LocalQueue in it and a ClusterQueue in the cluster's
Kueue cohort, with a quota of chips (`xcli team create|list|delete`).

`spec.py` checks the flags, `objects.py` builds the Kueue objects (pure), `plan.py` turns them
into a plan whose first step reads the cluster (`read.py` is that step's live handler), and
`live.py` reads the teams for `team list`. Workloads reach a team's queue with
`xcli workload ... --namespace TEAM`.
"""
