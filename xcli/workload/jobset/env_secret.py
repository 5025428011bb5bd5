"""`workload create --env-secret` on Kubernetes: the user's `--env`/`--env-file` values go into
a Secret xcli creates, and the pods read them through `secretKeyRef`, so the JobSet holds only
the names (issue 37: the values were stored in plain text in the JobSet).

Objects as the Kubernetes API defines them (kubernetes/api `core/v1/types.go`: `Secret` with
`type: Opaque` and `stringData`, written into `data` by the API server; `EnvVar.valueFrom`
with `SecretKeySelector{name, key}`; a Secret's keys match `[-._a-zA-Z0-9]+`, which every
environment-variable name xcli accepts does). The Secret is applied after the JobSet and owned
by it (`metadata.ownerReferences` with the JobSet's uid, as the A4X ComputeDomain is), so
Kubernetes' garbage collector deletes it with the workload; until it exists the kubelet
retries the container (`CreateContainerConfigError`), it never fails the pod.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from xcli.plan.model import Ref
from xcli.plan.steps import K8sApply, Text


def secret_name(workload: str) -> str:
    return f"{workload}-env"


def referenced(manifest: Any, names: Collection[str], secret: str) -> Any:
    """`manifest` with each user variable's `value` replaced by a reference into `secret`."""
    if isinstance(manifest, list):
        return [referenced(v, names, secret) for v in manifest]
    if not isinstance(manifest, dict):
        return manifest
    if set(manifest) == {"name", "value"} and manifest["name"] in names:
        ref = {"name": secret, "key": manifest["name"]}
        return {"name": manifest["name"], "valueFrom": {"secretKeyRef": ref}}
    return {k: referenced(v, names, secret) for k, v in manifest.items()}


def secret_step(
    workload: str, namespace: str, env: tuple[tuple[str, str], ...], cluster: Text
) -> K8sApply:
    owner = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "name": workload,
        "uid": Ref("jobset", "uid"),
        "blockOwnerDeletion": True,
    }
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": secret_name(workload),
            "namespace": namespace,
            "labels": {"app.kubernetes.io/managed-by": "xcli", "xcli/workload": workload},
            "ownerReferences": [owner],
        },
        "type": "Opaque",
        "stringData": dict(env),
    }
    return K8sApply(
        id="env-secret",
        summary=f"apply Secret {secret_name(workload)}: {len(env)} variable(s) the pods read "
        "(owned by the JobSet)",
        after=("jobset",),
        cluster=cluster,
        manifest=secret,
        redact=tuple(name for name, _ in env),
    )
