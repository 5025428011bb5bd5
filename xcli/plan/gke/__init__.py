"""Planning that serves only GKE clusters and the Kubernetes workloads on them: the in-cluster
setup (JobSet, Kueue, the metadata ConfigMap), Kueue's objects, the system and Pathways pools,
Kubernetes step kinds and the reads of what a cluster runs. Pure, like the rest of plan/; it
sits in plan/ rather than providers/gke/ because gateways (gateways/kube/) and the Kubernetes
workload kinds read these values, and gateways import no provider. Builders here take the GKE
provider's settings as explicit arguments (providers/gke/options.py holds GkeOptions).
What every provider shares stays in plan/ itself."""
