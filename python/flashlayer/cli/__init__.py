"""The ``flashlayer`` command: one module per command, this one builds the
parser and turns every user mistake into one line and exit code 2.

Every subcommand has ``--help``. User mistakes print one line
``flashlayer: error: ...`` to stderr and exit with code 2; no traceback.
With ``--json``, stdout carries the JSON document alone.
A closed pipe (``| head``) ends the command quietly; Ctrl-C exits 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from flashlayer._native import FlashlayerError
from flashlayer.cli import benchmark, bound, curve, flash, info, plot, report, reproduce, sim, sweep, trace
from flashlayer.cli.common import EXIT_USAGE, Parser, UsageError, paragraph, stdout_for_json
from flashlayer.version import __version__

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    root = Parser(
        prog="flashlayer",
        description=paragraph("""
            Storage management for databases that knows flash is not a disk: replay page traces through buffer
            policies and device cost models, convert and generate traces, plot runs, benchmark the engine, and
            reproduce the papers."""),
        epilog="Examples:\n"
        "  flashlayer sim data/traces/pg15-tpcc-sysbench-w2.csv.gz --policy lru,arc,belady --buffer 1%,5% "
        "--device ratio:1:64\n"
        "  flashlayer trace stats data/traces/pg15-tpcc-sysbench-w2.csv.gz --json\n"
        "  flashlayer trace gen zipf --requests 1000000 --pages 100000 --seed 1 --out z.flt\n"
        "  flashlayer flash crash-test --method pdl:256 --cuts 10000\n"
        "  flashlayer reproduce --quick --out report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    root.add_argument("--version", action="version", version=f"flashlayer {__version__}")
    sub = root.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for module in (sim, sweep, curve, bound, trace, info, plot, report, benchmark, reproduce, flash):
        module.add(sub)
    return root


def _die(message: str) -> NoReturn:
    print(f"flashlayer: error: {message}", file=sys.stderr)
    sys.exit(EXIT_USAGE)


def _quiet_broken_pipe() -> NoReturn:
    # The reader went away (e.g. `| head`): nothing left to say. Point stdout
    # at /dev/null so the interpreter's final flush does not complain.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)


def main(argv: Sequence[str] | None = None) -> None:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        with stdout_for_json(getattr(args, "json", False)):
            args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_broken_pipe()
    except (UsageError, FlashlayerError) as e:
        _die(str(e))
    except FileNotFoundError as e:
        _die(f"{e.filename}: no such file or directory")
    except PermissionError as e:
        _die(f"{e.filename}: permission denied")
    except IsADirectoryError as e:
        _die(f"{e.filename}: is a directory")
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        _die(f"{where}{e.strerror or e}")
    except KeyboardInterrupt:
        print("flashlayer: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
