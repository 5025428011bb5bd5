"""The local provider: an emulated TPU slice on this machine, real sshd processes on loopback.

One package, provider and its process gateways together: provider.py (the Provider),
layout.py (where a cluster's files and ports are), handlers.py (live handlers), keys.py,
process.py, supervisor.py (`python -m xcli.providers.local.supervisor DIR`), sshd.py and
probe.py (the emulator's processes). It may import subprocess and asyncssh (pyproject.toml).
"""
