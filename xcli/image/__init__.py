"""Images built without Docker: a folder appended as layers to a base image (issue 24).

Pure code: reading the local folder, the layer tars and their digests, the image config and
manifest, the choice of a platform in an index, and the plan steps of a build. The registry
and Artifact Registry calls are gateways (`xcli/gateways/registry/client.py`,
`xcli/gateways/google/artifact_registry.py`) that run these steps.
"""
