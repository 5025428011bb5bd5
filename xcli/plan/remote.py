"""The remote side of a broadcast command: a one-line POSIX-shell prefix that ties the user's
command to the SSH channel, at the cost of one `fork` on the worker.

Why: closing an SSH connection does not stop a remote command that neither reads nor writes
(sshd only closes its pipes), and sshd ignores the client's `signal` request for root logins.

How: sshd starts the login shell in a new session (`setsid`), so that shell's PID `$$` names the
command's process group. The prefix moves the channel's stdin to fd 3 (the command itself gets
/dev/null) and starts one background watcher that reads fd 3 (and ignores what it reads: the
openssh engine writes one newline, see gateways/ssh/openssh_engine.py); the client keeps
the channel's stdin open. When the client closes it, or the connection goes, the
watcher sees end-of-file; if the command (`$$`) is still running, it stops the whole group
(SIGTERM, SIGKILL 2 s later; it ignores the TERM itself). A command that ended normally is left
alone, and so are the background processes it left behind, as with plain ssh. `$$` cannot be
reused by another process while the watcher, a member of that group, lives.

Then the shell runs the user's command text as it was given, on the same line, so it is parsed
exactly as `$SHELL -c COMMAND` would parse it (line numbers in error messages included). The
command stays one argument to ssh and never meets a local shell.

Exit status: by default the shell runs the command's last simple command with `exec`, as
`sh -c` does, so a command killed by signal N is reported by sshd as an `exit-signal` message;
the asyncssh engine turns that into 128+N. The OpenSSH client cannot report it (ssh exits 255
as for a failed connection), so for that engine `keep_shell=True` adds an EXIT trap: the shell
then stays, waits, and exits 128+N itself (one more fork per command).
"""

from __future__ import annotations

# fd 3: the channel's stdin, for the watcher only. `kill -0 $$`: is the command still running?
# `kill -TERM -$$` needs $$ to lead a process group (sshd makes it so); if not, the shell alone.
_PREFIX = (
    "exec 3<&0 </dev/null; "
    "{ trap '' HUP INT TERM; while read -r _ <&3; do :; done; "
    "kill -0 $$ && { kill -TERM -$$ || kill -TERM $$; sleep 2; kill -KILL -$$ || kill -KILL $$; }; "
    "} >/dev/null 2>&1 & exec 3<&-; "
)
_KEEP_SHELL = "trap : EXIT; "


def remote_command(command: str, *, keep_shell: bool = False) -> str:
    """The one string the worker's login shell runs for `command` (see the module doc)."""
    return (_KEEP_SHELL if keep_shell else "") + _PREFIX + command
