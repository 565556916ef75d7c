"""The Python wheels (dist/python): each Linux wheel's tag agrees with `auditwheel show`; the x86-64 one installs
into a clean venv with no cargo on PATH and passes the README's example; the macOS and Windows wheels' extension
modules are checked as files; the sdist is there."""

import os
import subprocess
import sys
import tempfile
import zipfile

from . import common
from .binaries import c_libraries, check_elf_library, check_macho, check_pe
from .common import ROOT, missing, report, skipped


# The platform tag of each target's wheel, as maturin names it.
WHEELS = {
    "manylinux2014_x86_64": "linux", "manylinux2014_aarch64": "linux",
    "musllinux_1_2_x86_64": "linux", "musllinux_1_2_aarch64": "linux",
    "macosx_10_12_x86_64": "x86_64", "macosx_11_0_arm64": "arm64", "win_amd64": "windows",
}


def tag_of(wheel):
    return wheel.rsplit("-", 1)[1].removesuffix(".whl")


def check():
    folder = os.path.join(common.DIST, "python")
    wheels = sorted(f for f in os.listdir(folder) if f.endswith(".whl")) if os.path.isdir(folder) else []
    if not wheels:
        missing("python: no wheels in dist/python")
        return
    report(any(f.endswith(".tar.gz") for f in os.listdir(folder)), "python: the sdist is there")
    for tag in WHEELS:
        if not any(tag in tag_of(w).split(".") for w in wheels):
            missing(f"python: no {tag} wheel")
    check_tags(folder, [w for w in wheels if "manylinux" in tag_of(w)])
    for wheel in wheels:
        kind = next((WHEELS[t] for t in tag_of(wheel).split(".") if t in WHEELS), None)
        if "musllinux" in tag_of(wheel):
            # auditwheel reads the running system's musl to judge a musllinux wheel, and on a glibc host it finds
            # glibc's linker script named libc.so: the file is read here instead. The module needs only `libc.so`,
            # which musl's loader answers itself (a reserved name), so it loads on Alpine with no musl-dev.
            machine = "aarch64" if tag_of(wheel).endswith("aarch64") else "x86-64"
            check_elf_library(f"python: {wheel}", extension(folder, wheel, ".so"), machine, c_libraries(musl=True))
            skipped(f"python: {wheel}: auditwheel and a run need a musl host")
        elif kind in ("x86_64", "arm64"):
            check_macho(f"python: {wheel}", extension(folder, wheel, ".so"), kind, host_symbols=("_Py", "__Py"))
            skipped(f"python: {wheel}: not run (no macOS here)")
        elif kind == "windows":
            # An abi3 extension imports the stable ABI from python3.dll, which every CPython for Windows has.
            check_pe(f"python: {wheel}", extension(folder, wheel, ".pyd"), dll=True, also=("python3.dll",))
            skipped(f"python: {wheel}: not run (no CPython for Windows here)")
    install_and_run(folder, next((w for w in wheels if "manylinux2014_x86_64" in tag_of(w).split(".")), None))


def extension(folder, wheel, suffix):
    """The bytes of the wheel's extension module (cuecard/_cuecard*.so or .pyd)."""
    with zipfile.ZipFile(os.path.join(folder, wheel)) as archive:
        name = next(n for n in archive.namelist() if n.startswith("cuecard/_cuecard") and n.endswith(suffix))
        return archive.read(name)


def check_tags(folder, wheels):
    """Each Linux wheel's platform tag agrees with `auditwheel show`."""
    if not wheels:
        return
    tools = tempfile.mkdtemp(prefix="cuecard-auditwheel-")
    subprocess.run([sys.executable, "-m", "venv", tools], check=True)
    subprocess.run([os.path.join(tools, "bin", "pip"), "install", "-q", "auditwheel==6.8.2"], check=True)
    for wheel in wheels:
        shown = subprocess.run([os.path.join(tools, "bin", "auditwheel"), "show", os.path.join(folder, wheel)],
                               capture_output=True, text=True)
        platforms = tag_of(wheel).split(".")
        said = " ".join(shown.stdout.split())
        agreed = [p for p in platforms if f'"{p}"' in said]
        report(shown.returncode == 0 and bool(agreed),
               f"python: {wheel}: auditwheel agrees with {', '.join(agreed) or platforms} "
               f"({said[:100] or shown.stderr.strip()[-200:]}...)")


def install_and_run(folder, native):
    """The x86-64 wheel installed into a clean venv with no cargo on PATH runs the README example of
    `pip install ./python` (python/tests/test_readme_example.py) and the CLI entry point."""
    if native is None:
        missing("python: no x86-64 wheel to install here")
        return
    venv = tempfile.mkdtemp(prefix="cuecard-wheel-venv-")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    # No cargo, rustc or compiler on PATH: the wheel must not build anything.
    clean = dict(os.environ, PATH=f"{venv}/bin:/usr/bin:/bin")
    installed = subprocess.run([f"{venv}/bin/pip", "install", "-q", "--only-binary", ":all:",
                                os.path.join(folder, native), "pytest==9.2.0"], env=clean, capture_output=True, text=True)
    report(installed.returncode == 0, f"python: {native} installs with no cargo on PATH {installed.stderr[-200:]}")
    example = subprocess.run([f"{venv}/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "test_readme_example.py"], cwd=os.path.join(ROOT, "python", "tests"), env=clean,
                             capture_output=True, text=True)
    report(example.returncode == 0, f"python: the README's example passes ({example.stdout.strip().splitlines()[-1:]})")
    counted = subprocess.run([f"{venv}/bin/cuecard", "tokenize", "--count"], input="Hello, world!", env=clean,
                             capture_output=True, text=True)
    report(counted.stdout.strip() == "4", "python: the wheel's cuecard command runs")
