"""What every hlotools command line shares: input and output files, --debug, errors, exit codes.

Exit codes: 0 success, 1 bad input (an HloError: unreadable file, bad HLO, bad arguments,
runtime refusal), 2 bad usage (click's own), 3 results differ from --expected (hlo-run),
70 an internal error (a bug in hlotools: one line, or a traceback with --debug).
A Python traceback is never shown without --debug.
"""
from __future__ import annotations

import os
import re
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from hlotools.errors import HloError

EXIT_OK = 0
EXIT_BAD_INPUT = 1
EXIT_MISMATCH = 3
EXIT_INTERNAL = 70  # EX_SOFTWARE from sysexits.h

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class HloCommand(click.Command):
    """A click command whose callback's failures become messages and exit codes, not tracebacks."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, self.preprocess(list(args)))
        except click.ClickException as e:  # a bad option value: JSON too under --json
            if "--json" in args[:args.index("--") if "--" in args else len(args)]:
                json_error(e.format_message(), e.exit_code)
            raise

    def preprocess(self, args: list[str]) -> list[str]:
        """The command line as click should read it: LLVM's single-dash long options accepted."""
        return llvm_spellings(self, args)

    def invoke(self, ctx: click.Context) -> Any:
        debug = bool(ctx.params.get("debug"))
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a full disk or /dev/full must fail here, not at interpreter exit
            return result
        except (click.exceptions.Exit, click.exceptions.Abort):
            raise
        except click.ClickException as e:
            if ctx.params.get("as_json"):
                json_error(e.format_message(), e.exit_code)
            raise
        except HloError as e:
            if debug:
                traceback.print_exc()
            if ctx.params.get("as_json"):
                json_error(e.message, EXIT_BAD_INPUT, e)
            err(e.format())
            ctx.exit(EXIT_BAD_INPUT)
        except BrokenPipeError:
            # The reader went away (`hlo-opt x.hlo | head`): stop quietly, like other Unix tools.
            _silence_stdout()
            ctx.exit(EXIT_OK)
        except OSError as e:
            # The environment refused (a full disk, a read-only folder, /dev/full as stdout): bad
            # circumstances, not a bug in hlotools. Named by the file when the error names one.
            if debug:
                traceback.print_exc()
            err(_os_error_message(e))
            _silence_stdout()
            ctx.exit(EXIT_BAD_INPUT)
        except RecursionError:
            # The parser bounds the nesting it reads (ir.types.MAX_TUPLE_DEPTH, operand nesting);
            # this is the backstop for valid but deep structure elsewhere (a call chain thousands
            # of computations deep in the interpreter): a resource limit, like memory.
            if debug:
                traceback.print_exc()
            err(f"{_input_name(ctx)}error: the module nests too deeply for hlotools (Python's recursion "
                "limit was reached; a chain of calls or tuples thousands deep?)")
            ctx.exit(EXIT_BAD_INPUT)
        except MemoryError as e:
            # Sizes are checked against ir.types' caps before the big allocations; this is the
            # backstop for what those checks do not see (machine smaller than the cap, many arrays).
            if debug:
                traceback.print_exc()
            detail = str(e).strip().splitlines()[0] if str(e).strip() else ""
            err(f"{_input_name(ctx)}error: out of memory{': ' + detail if detail else ''} (the input needs "
                "more memory than this machine has)")
            ctx.exit(EXIT_BAD_INPUT)
        except KeyboardInterrupt:
            err("interrupted")
            ctx.exit(130)
        except Exception as e:  # noqa: BLE001 - the last line of defence: one line, exit 70
            _internal_error(e, debug)
            ctx.exit(EXIT_INTERNAL)

    def main(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        """Failures before the callback runs (option callbacks, parsing) get the same treatment."""
        try:
            return super().main(args, *rest, **kwargs)
        except Exception as e:  # noqa: BLE001
            argv = list(args) if args is not None else sys.argv[1:]
            _internal_error(e, "--debug" in argv)
            sys.exit(EXIT_INTERNAL)


def json_error(message: str, exit_code: int, e: HloError | None = None) -> None:
    """Under --json, a failure is a JSON document on standard output too (the text stays on stderr)."""
    import json
    doc: dict[str, Any] = {"message": message, "exit_code": exit_code}
    if e is not None:
        doc |= {"file": e.filename, "line": e.line or None, "column": e.column or None}
    try:
        click.echo(json.dumps({"error": doc}))
    except OSError:
        pass


def llvm_spellings(command: click.Command, args: list[str]) -> list[str]:
    """`-time-passes` means `--time-passes`, as in LLVM's tools; a single-dash word close to a long
    option is answered with it ("did you mean --print-after-all?") rather than read as -p -r ...."""
    longs = {o for p in command.params if isinstance(p, click.Option) for o in p.opts + p.secondary_opts
             if o.startswith("--")}
    shorts = {o[1] for p in command.params if isinstance(p, click.Option) for o in p.opts
              if len(o) == 2 and o[0] == "-" and o[1] != "-"}
    out: list[str] = []
    for i, tok in enumerate(args):
        if tok == "--":
            return out + args[i:]
        word = tok.split("=", 1)[0]
        if len(word) > 2 and tok[0] == "-" and tok[1] != "-" and tok[1].isalpha():
            if "-" + word in longs:
                tok = "-" + tok
            elif not set(word[1:]) <= shorts and word[1] not in shorts - {"v"}:
                import difflib
                close = difflib.get_close_matches("-" + word, sorted(longs), n=1, cutoff=0.7)
                if close:
                    raise usage_error(f"no such option: {word}; did you mean {close[0]}?")
        out.append(tok)
    return out


def version_option(f: F) -> F:
    return click.version_option(package_name="hlotools", message="%(prog)s (hlotools) %(version)s")(f)


def _input_name(ctx: click.Context) -> str:
    """'FILE: ' for messages about the command's input file ('<stdin>: ' for '-'), else ''."""
    path = ctx.params.get("input_file")
    files = ctx.params.get("input_files")
    if isinstance(files, tuple) and len(files) == 1:
        path = files[0]
    if not isinstance(path, str):
        return ""
    return "<stdin>: " if path == "-" else f"{path}: "


def _os_error_message(e: OSError) -> str:
    """`FILE: error: REASON`. Opening and writing files names them (Path and open do); an error
    that names no file came from writing a stream: standard output (print, click.echo)."""
    reason = e.strerror or str(e) or type(e).__name__
    if e.filename:
        return f"{e.filename}: error: {reason}"
    return f"<stdout>: error: cannot write: {reason}"


def _internal_error(e: BaseException, debug: bool) -> None:
    if debug:
        traceback.print_exception(e)
    first = str(e).strip().splitlines()[0] if str(e).strip() else ""
    err(f"internal error: {type(e).__name__}" + (f": {first}" if first else "") +
        ("" if debug else " (run with --debug for a traceback)"))


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def err(message: str) -> None:
    click.echo(message, err=True)


def usage_error(message: str) -> click.UsageError:
    """A bad-usage failure (exit 2) with click's 'Usage: ...' line and the message."""
    return click.UsageError(message)


def debug_option(f: F) -> F:
    return click.option("--debug", is_flag=True,
                        help="Show a Python traceback when something fails (for hlotools bugs).")(f)


def _set_semantics(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        from hlotools.ir import semantics
        os.environ[semantics.ENV] = value  # children and the compile cache's key see it too


def _set_excess_precision(ctx: click.Context, param: click.Parameter, value: bool | None) -> None:
    if value is not None:
        from hlotools.passes.float_normalization import ENV
        os.environ[ENV] = "1" if value else "0"  # like --semantics: children and cache keys see it


def semantics_option(f: F) -> F:
    """--semantics: hlotools.ir.semantics' choice for this run (default: $HLOTOOLS_SEMANTICS or xla-cpu);
    with it --xla-allow-excess-precision, XLA's flag of that name ($HLOTOOLS_EXCESS_PRECISION)."""
    f = click.option("--xla-allow-excess-precision", type=click.BOOL, default=None, expose_value=False,
                     callback=_set_excess_precision, is_eager=True, metavar="BOOL",
                     help="As XLA's flag (default true): bf16 results read by a convert to f32 keep "
                          "their f32 value; false rounds every bf16 result.")(f)
    return click.option("--semantics", type=click.Choice(["xla-cpu", "spec"]), default=None, expose_value=False,
                        callback=_set_semantics, is_eager=True,
                        help="Where XLA CPU and the HLO spec part ways, whose answer to give "
                             "(default xla-cpu; README.md lists the cases).")(f)


def output_option(f: F) -> F:
    return click.option("-o", "--output", "output", default="-", show_default=True, metavar="FILE",
                        help="Write the result to FILE ('-' is standard output).")(f)


def style_option(f: F) -> F:
    return click.option("--style", type=click.Choice(["short", "long"]), default=None,
                        help="Print style: 'short' (jax's as_text form) or 'long' (XLA's dump form). "
                             "Default: the input's own style.")(f)


def _set_input_format(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.meta["hlotools.input_format"] = value


def input_format_option(f: F) -> F:
    """--input-format (read_input finds it in the click context: one option for all tools)."""
    return click.option("--input-format", type=click.Choice(["hlo", "stablehlo"]), default=None, expose_value=False,
                        callback=_set_input_format, is_eager=True,
                        help="What FILE holds (default: from its suffix, .mlir is StableHLO, else from its "
                             "content).")(f)


def input_argument(f: F) -> F:
    """FILE, and --input-format."""
    return click.argument("input_file", metavar="FILE", default="-")(input_format_option(f))


_MLIR_BYTECODE = b"ML\xefR"
_STABLEHLO_SUFFIXES = (".mlir", ".stablehlo")


def read_input(path: str) -> tuple[str, str]:
    """(text, display name) of a file or of standard input ('-')."""
    if path == "-":
        if sys.stdin.isatty():  # `hlo-opt` with no FILE at a prompt: say why nothing happens
            err("reading HLO text from standard input (end it with Ctrl-D)")
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read() if stream is not None else sys.stdin.read().encode("utf-8")
        name = "<stdin>"
    else:
        p = Path(path)
        if not p.exists():
            raise HloError("no such file or directory", filename=path)
        if p.is_dir():
            raise HloError("is a directory", filename=path)
        try:
            data = p.read_bytes()
        except OSError as e:
            raise HloError(f"cannot read: {e.strerror or e}", filename=path) from None
        name = path
    if not data.strip():
        raise HloError("empty input (no HLO module in it)", filename=name)
    if name.endswith(".pb") or data.startswith(b"\x0a"):  # maybe an HloProto dump: only then import its reader
        from hlotools.io.hlo_proto import looks_like_proto, proto_to_text
        if looks_like_proto(data, name):  # an XLA HloProto dump (--xla_dump_hlo_as_proto)
            return proto_to_text(data, name), name
    ctx = click.get_current_context(silent=True)
    chosen = ctx.meta.get("hlotools.input_format") if ctx is not None else None
    if data.startswith(_MLIR_BYTECODE):
        raise HloError("this is MLIR bytecode, not text: re-export as text with jax.jit(f).lower(x).as_text() "
                       "(or `stablehlo-translate --deserialize FILE`, `mlir-opt FILE`)", 1, 1, name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise HloError("the input is not UTF-8 text", line, column, name) from None
    text = strip_log_headers(text)  # a module copied out of a glog log, HLO or StableHLO
    if chosen == "stablehlo" or chosen is None and (name.endswith(_STABLEHLO_SUFFIXES) or _is_stablehlo(text)):
        from hlotools.text.stablehlo import stablehlo_to_hlo
        return stablehlo_to_hlo(text, name), name
    if chosen is None and _PROTO_TEXT.match(text):
        raise HloError("this looks like an HloModuleProto in protobuf text format, which is not read here: dump "
                       "HLO text instead (XLA_FLAGS=--xla_dump_hlo_as_text) or the binary proto "
                       "(--xla_dump_hlo_as_proto, a .pb file)", 1, 1, name)
    return text, name


# The first field of an HloModuleProto printed as protobuf text (`name: "jit_f"`, `computations {`).
_PROTO_TEXT = re.compile(r"\s*(?:#[^\n]*\n\s*)*(?:name|id|entry_computation_name|entry_computation_id|computations"
                         r"|host_program_shape|schedule|input_output_alias|spmd_output_sharding)\s*(?::\s*\S|\{)")


def _is_stablehlo(text: str) -> bool:
    from hlotools.text.stablehlo import looks_like_stablehlo  # a regex: no parser import on HLO input
    return looks_like_stablehlo(text)


# XLA's hlo_module_loader.cc StripLogHeaders: `I0521 12:04:45.883483    1509 service.cc:186] `
_LOG_HEADER = re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+[^:\n]+:\d+\]\s?", re.MULTILINE)


def strip_log_headers(text: str) -> str:
    """HLO text pasted from a glog log loses each line's log prefix, as XLA's hlo-opt does, so
    a module copied out of a VLOG dump reads as written (line numbers stay the same)."""
    return _LOG_HEADER.sub("", text) if "] " in text else text


def write_output(path: str, text: str) -> None:
    """Write text to a file or, for '-', to standard output."""
    if path == "-":
        try:
            click.echo(text, nl=not text.endswith("\n"))
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as e:  # /dev/full; the unwritten rest must not fail again at exit
            _silence_stdout()
            raise HloError(f"cannot write: {e.strerror or e}", filename="<stdout>") from None
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise HloError(f"cannot write: {e.strerror or e}", filename=path) from None


def _value_options(command: click.Command) -> set[str]:
    """Option spellings that take a separate value token (`-o FILE`), to tell values from positionals."""
    names: set[str] = set()
    for p in command.params:
        if isinstance(p, click.Option) and not p.is_flag and not p.count:
            names.update(p.opts)
    return names


def _is_option(token: str) -> bool:
    return token.startswith("-") and token != "-"


def _has_positional(tokens: list[str], value_opts: set[str]) -> bool:
    skip = False
    for t in tokens:
        if skip:
            skip = False
        elif t == "--":
            return len(tokens) > tokens.index(t) + 1
        elif t in value_opts:
            skip = True
        elif not _is_option(t):
            return True
    return False


def expand_variadic(args: list[str], flag: str, value_opts: set[str]) -> list[str]:
    """Let `flag A B C` mean `flag A flag B flag C` (click options take a fixed count).

    The run of values ends at the next option or at '-' (standard input is the model). When no
    positional argument comes before or after the run, its last value is the positional one:
    `hlo-run --inputs a.npy b.npy model.hlo` reads as intended.
    """
    out: list[str] = []
    seen_positional = False
    i = 0
    while i < len(args):
        tok = args[i]
        if tok == "--":
            out.extend(args[i:])
            break
        if tok != flag:
            if tok in value_opts and i + 1 < len(args):
                out.extend(args[i:i + 2])
                i += 2
                continue
            seen_positional = seen_positional or not _is_option(tok)
            out.append(tok)
            i += 1
            continue
        j = i + 1
        while j < len(args) and not args[j].startswith("-"):
            j += 1
        run = args[i + 1:j]
        positional: list[str] = []
        if not seen_positional and len(run) > 1 and not _has_positional(args[j:], value_opts):
            positional = [run.pop()]
        for value in run:
            out.extend([flag, value])
        if not run:
            out.append(flag)  # click reports the missing value
        out.extend(positional)
        seen_positional = seen_positional or bool(positional)
        i = j
    return out


class VariadicCommand(HloCommand):
    """An HloCommand whose `variadic_options` take several values after one flag."""

    variadic_options: tuple[str, ...] = ()

    def preprocess(self, args: list[str]) -> list[str]:
        return self.expand_variadic(super().preprocess(args))

    def expand_variadic(self, args: list[str]) -> list[str]:
        value_opts = _value_options(self)
        for flag in self.variadic_options:
            args = expand_variadic(list(args), flag, value_opts - {flag})
        return args
