"""The static CLI of each target (dist/cli): run here on Linux x86-64, under qemu on ARM64, under wine on Windows;
its Mach-O files checked for macOS, which cannot run here."""

import os
import subprocess

from . import common
from .binaries import check_macho, check_pe, elf_is_static
from .common import VERSION, free_port, missing, qemu, read_bytes, report, serve_and_ask, skipped, wine


def unpack(target):
    """The unpacked `cuecard` of `target`, or None (said as missing) when there is no archive."""
    top = common.unpack_archive("cli", f"cuecard-{VERSION}-{target}")
    if top is None:
        missing(f"{target}: no archive in {common.DIST}/cli")
        return None
    return os.path.join(top, "cuecard.exe" if "windows" in target else "cuecard")


def check_version(command, label, env=None):
    printed = subprocess.run(command + ["--version"], capture_output=True, text=True, timeout=120, env=env).stdout
    report(printed.strip() == f"cuecard {VERSION}", f"{label}: --version prints cuecard {VERSION} ({printed.strip()!r})")


def check_linux(target):
    binary = unpack(target)
    if binary is None:
        return
    ok, what = elf_is_static(read_bytes(binary))
    report(ok, f"{target}: static ({what})")
    runner = qemu() if "aarch64" in target else None
    if runner is None and "aarch64" in target:
        skipped(f"{target}: not run (install qemu-user-static)")
        return
    prefix = [runner] if runner else []
    check_version(prefix + [binary], target)
    port = free_port()
    serve_and_ask(prefix + [binary, "serve", "--port", str(port)], target, port,
                  prefix + [binary, "health", f"http://127.0.0.1:{port}"])


def check_windows(target):
    binary = unpack(target)
    if binary is None:
        return
    check_pe(target, read_bytes(binary), dll=False)
    emulator = wine()
    if emulator is None:
        skipped(f"{target}: not run (no wine here: apt-get install wine64)")
        return
    program, env = emulator
    check_version([program, binary], f"{target} under wine", env)
    port = free_port()
    serve_and_ask([program, binary, "serve", "--port", str(port)], f"{target} under wine", port, env=env)


def check_macos(target, cpu):
    binary = unpack(target)
    if binary is None:
        return
    check_macho(target, read_bytes(binary), cpu)
    skipped(f"{target}: not run (no macOS here)")


def check():
    check_linux("x86_64-unknown-linux-musl")
    check_linux("aarch64-unknown-linux-musl")
    check_windows("x86_64-pc-windows-gnu")
    check_macos("x86_64-apple-darwin", "x86_64")
    check_macos("aarch64-apple-darwin", "arm64")
