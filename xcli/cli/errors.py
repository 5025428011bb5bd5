"""The one place errors become messages and exit codes.

0 ok, 1 user or cloud error, 2 usage, 3 internal error (a bug), 130 interrupted.
"User error" includes an invalid value for a flag (a bad choice, a number out of range): one
line and exit 1, like every other invalid input. "Usage" (2) is a command line that does not
parse: an unknown command or option, a missing argument. Both get one line and a hint naming the
command's --help. Tracebacks only with XCLI_DEBUG=1; for a bug the traceback goes to a log file
that is named.
"""

from __future__ import annotations

import errno
import sys

import click

from xcli.errors import (
    ConfigError,
    InputErrors,
    InternalError,
    Interrupted,
    NoCredentials,
    XcliError,
)


def say_error(message: str, hint: str = "") -> None:
    from xcli.cli.table import colour

    line = f"error: {_shorten(message)}"
    click.echo(click.style(line, fg="red") if colour(sys.stderr) else line, err=True)
    if hint:
        click.echo(f"hint: {_shorten(hint)}", err=True)


LONGEST = 600  # characters of one error or hint line: a 1 MB value is not echoed back whole


def _shorten(text: str) -> str:
    if len(text) <= LONGEST:
        return text
    return f"{text[: LONGEST - 100]}... ({len(text):,} characters in all)"


def run_guarded(
    command: click.Command, argv: list[str] | None, *, debug: bool, obj: object = None
) -> int:
    """Run `command`; `obj` (the gateways commands use, see xcli/cli/main.py) becomes the
    click context's object, where commands find it."""
    try:
        result = command.main(args=argv, prog_name="xcli", standalone_mode=False, obj=obj)
        return result if isinstance(result, int) else 0
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            say_error("interrupted", _INTERRUPTED_HINT)
            return 130
        say_error("aborted", "nothing was changed")
        return 1
    except click.UsageError as exc:
        say_error(_one_line(exc.format_message()), _help_hint(exc.ctx))
        # A value that fails its check is invalid input (1); a line that is incomplete or does
        # not parse (a missing option, an unknown one) is a usage error (2).
        bad_value = isinstance(exc, click.BadParameter)
        return 1 if bad_value and not isinstance(exc, click.MissingParameter) else 2
    except click.ClickException as exc:  # e.g. a file click could not open
        say_error(_one_line(exc.format_message()))
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except (KeyboardInterrupt, Interrupted) as exc:
        hint = exc.hint if isinstance(exc, Interrupted) else ""
        say_error("interrupted", hint or _INTERRUPTED_HINT)
        return 130
    except InternalError as exc:
        return _bug(exc, debug)
    except InputErrors as exc:
        for message, hint in exc.problems:
            say_error(message, hint)
        return exc.exit_code
    except XcliError as exc:
        if debug:
            import traceback

            traceback.print_exc()
        if isinstance(exc, (NoCredentials, ConfigError)):  # no login, no project or zone
            _unknown_cluster(argv)
        say_error(exc.message, exc.hint)
        return exc.exit_code
    except BrokenPipeError:
        return 1
    except OSError as exc:
        if exc.filename is None and exc.errno in _SPACE_ERRORS:
            # write(2) names no file: a full disk (or quota, or size limit) is still one line
            say_error(
                f"cannot write: {exc.strerror}",
                "free some space on that disk (XCLI_HOME and XDG_CONFIG_HOME move xcli's "
                "folders), then run the command again",
            )
            return 1
        if exc.filename is None or exc.errno not in _FILE_ERRORS:
            return _bug(exc, debug)
        # A file system refusal (a path under a regular file, no permission, a full disk)
        # is about this machine, not a bug: one line naming the path.
        say_error(
            f"cannot use {exc.filename}: {exc.strerror}",
            "check that path (XCLI_HOME and XDG_CONFIG_HOME move xcli's folders)",
        )
        return 1
    except Exception as exc:
        return _bug(exc, debug)


_INTERRUPTED_HINT = (
    "whatever it had already started keeps running: run the same command again to pick it up "
    "(what finished is kept), or delete what it made"
)

# No space left: a full disk, a quota, a file-size limit (RLIMIT_FSIZE), a read-only mount.
_SPACE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS}
_FILE_ERRORS = {
    errno.ENOTDIR,
    errno.EISDIR,
    errno.EACCES,
    errno.EPERM,
    errno.ENAMETOOLONG,
    errno.ELOOP,
    *_SPACE_ERRORS,
}


def _one_line(message: str) -> str:
    return " ".join(message.split())


def _help_hint(ctx: click.Context | None) -> str:
    if ctx is None:
        return "`xcli --help` lists the commands"
    what = "commands" if isinstance(ctx.command, click.Group) else "options, with examples"
    return f"`{ctx.command_path} --help` lists the {what}"


def _bug(exc: BaseException, debug: bool) -> int:
    import time
    import traceback

    from xcli import paths
    from xcli.state_files import write_private

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    if debug:
        sys.stderr.write(text)
    log = paths.state_dir() / "logs" / f"error-{time.strftime('%Y%m%d-%H%M%S')}.log"
    try:
        write_private(log, text)  # owner-only: a traceback may hold paths and values
        where = f"details in {log}"
    except (OSError, XcliError):
        where = "run again with XCLI_DEBUG=1 for the traceback"
    say_error(f"internal error: {type(exc).__name__}: {exc}", f"this is a bug in xcli; {where}")
    return 3


def _unknown_cluster(argv: list[str] | None) -> None:
    """Before a credentials error (or a missing project or zone): the --cluster named is not
    one this machine knows, while it knows others (a typo of a local cluster reads as a
    missing login otherwise)."""
    from xcli import cluster_index

    args = list(sys.argv[1:] if argv is None else argv)  # None: the console script's own
    if any(a == "--provider" or a.startswith("--provider=") for a in args):
        return
    name = ""
    for i, arg in enumerate(args):
        if arg == "--cluster" and i + 1 < len(args):
            name = args[i + 1]
        elif arg.startswith("--cluster="):
            name = arg.split("=", 1)[1]
    known = cluster_index.known_names()
    if not name or not known or name in known:
        return
    listed = ", ".join(f"{n} ({', '.join(cluster_index.providers_of(n))})" for n in known)
    click.echo(f"note: no cluster {name} on this machine; known: {listed}", err=True)
