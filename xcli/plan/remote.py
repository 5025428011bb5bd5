"""The remote side of a broadcast command: a small POSIX-shell wrapper around the user's command
that ties the command's life to the SSH channel.

Why: closing an SSH connection does not stop a remote command that neither reads nor writes
(sshd only closes its pipes), and sshd ignores the client's `signal` request for root logins.
So the wrapper starts the command in its own process group (`setsid`, when the worker has it),
with stdin from /dev/null, and a watcher reads the channel's stdin, which the client keeps open
and never writes to. When the client closes it, or the connection goes, the watcher sees EOF and
stops the whole group (SIGTERM, SIGKILL 2 s later). Otherwise the wrapper waits for the command
and exits with its status, so exit codes pass through unchanged (a command killed by signal N
gives 128+N, as a shell reports it); the wrapper itself prints nothing.

The user's command stays one string, quoted for the remote shell (`shlex.quote`, POSIX single
quotes: safe for quotes, `$`, `;` and newlines) and run as `$SHELL -c COMMAND` as sshd itself
would; it is still passed to ssh as ONE argument and never meets a local shell.
"""

from __future__ import annotations

import shlex

# $c: the command; fd 3: the channel's stdin; $p: the command's process group; $w: the watcher.
_WRAPPER = """\
c={command}
exec 3<&0 </dev/null
if command -v setsid >/dev/null 2>&1; then setsid "${{SHELL:-/bin/sh}}" -c "$c" 3<&- &
else "${{SHELL:-/bin/sh}}" -c "$c" 3<&- & fi
p=$!
trap 'kill -TERM -$p 2>/dev/null' HUP INT TERM
{{ while read -r _ <&3; do :; done; kill -TERM -$p; sleep 2; kill -KILL -$p; }} >/dev/null 2>&1 &
w=$!
wait $p 2>/dev/null; s=$?
kill $w 2>/dev/null
exit $s"""


def remote_command(command: str) -> str:
    """The one string the worker's login shell runs for `command` (see the module doc)."""
    return _WRAPPER.format(command=shlex.quote(command))
