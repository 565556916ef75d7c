"""What every release check shares: where the release is, the one-line reports, archives with their sums, a server
asked one chat request, and the emulators (qemu for ARM64 Linux, wine for Windows)."""

import hashlib
import json
import os
import shutil
import socket
import subprocess
import tarfile
import tempfile
import time
import urllib.request
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DIST = os.path.join(ROOT, "dist")  # scripts/check_release.py sets it from its argument
REQUIRE_ALL = False
failures = []


def configure(dist, require_all):
    global DIST, REQUIRE_ALL
    DIST, REQUIRE_ALL = os.path.abspath(dist), require_all


def report(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def skipped(what):
    print("skip  " + what, flush=True)


def missing(what):
    """An artifact that is not there: a failure with --all, else skipped."""
    (report(False, what) if REQUIRE_ALL else skipped(what))


def version():
    with open(os.path.join(ROOT, "Cargo.toml")) as cargo:
        for line in cargo:
            if line.startswith("version = "):
                return line.split('"')[1]
    raise SystemExit("no version in Cargo.toml")


VERSION = version()


def unpack_archive(folder, name):
    """dist/FOLDER/NAME.tar.gz (or .zip), its sum checked, unpacked into a new temporary folder: the path of its
    top folder (NAME), or None when there is no such archive."""
    archive = next((os.path.join(DIST, folder, name + ext) for ext in (".tar.gz", ".zip")
                    if os.path.exists(os.path.join(DIST, folder, name + ext))), None)
    if archive is None:
        return None
    with open(archive + ".sha256") as sums:
        expected = sums.read().split()[0]
    with open(archive, "rb") as data:
        actual = hashlib.sha256(data.read()).hexdigest()
    report(expected == actual, f"{os.path.basename(archive)}: SHA-256 matches")
    out = tempfile.mkdtemp(prefix="cuecard-release-")
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(out)
            # zipfile drops the mode bits; the archive keeps them in external_attr.
            for info in z.infolist():
                os.chmod(os.path.join(out, info.filename), (info.external_attr >> 16) & 0o777 or 0o644)
    else:
        with tarfile.open(archive) as t:
            t.extractall(out, filter="data")
    return os.path.join(out, name)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chat(port):
    body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", body,
                                     {"content-type": "application/json", "authorization": "Bearer sk-test"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.load(reply)["choices"][0]["message"]["content"]


def serve_and_ask(command, label, port, health=None, env=None):
    """Starts `command` (a server on `port`), asks it one chat request and its health, stops it."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.time() + 30
        answer = None
        while time.time() < deadline and answer is None:
            try:
                answer = chat(port)
            except OSError:
                if process.poll() is not None:
                    break
                time.sleep(0.2)
        report(bool(answer), f"{label}: serves and answers an OpenAI chat request ({answer!r:.50})")
        if health:
            checked = subprocess.run(health, capture_output=True, text=True, timeout=30)
            report(checked.returncode == 0, f"{label}: its health check passes ({checked.stdout.strip()[:60]})")
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def qemu():
    """qemu-user for ARM64 (Debian's qemu-user-static), or None."""
    return shutil.which("qemu-aarch64-static") or shutil.which("qemu-aarch64")


# Where Debian's libc6-arm64-cross and libstdc++6-arm64-cross put ARM64's glibc: qemu's -L for dynamic programs.
ARM64_SYSROOT = "/usr/aarch64-linux-gnu"


def zig():
    """zig's command line (from the ziglang wheel scripts/release.sh installs)."""
    python = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release-tools", "bin",
                          "python")
    if not os.path.exists(python):
        raise SystemExit(f"check_release: no zig at {python}: run scripts/release.sh first, with the same "
                         "CARGO_TARGET_DIR (it installs zig into $CARGO_TARGET_DIR/release-tools)")
    return [python, "-m", "ziglang"]


def wine():
    """(wine, its environment) with a prefix of our own that says Windows 10 and has the one DLL Debian 12's wine 8
    lacks (bcryptprimitives.dll, whose ProcessPrng Rust's std calls; scripts/wine/bcryptprimitives.c, built with
    zig), or None when wine is not installed."""
    program = shutil.which("wine64") or shutil.which("wine") or next(
        (p for p in ("/usr/lib/wine/wine64",) if os.access(p, os.X_OK)), None)
    if program is None:
        return None
    prefix = os.path.join(tempfile.gettempdir(), "cuecard-wineprefix")
    env = dict(os.environ, WINEPREFIX=prefix, WINEDEBUG="-all")
    system32 = os.path.join(prefix, "drive_c", "windows", "system32")
    if not os.path.exists(os.path.join(system32, "bcryptprimitives.dll")):
        subprocess.run([program, "wineboot", "--init"], env=env, capture_output=True, timeout=300)
        # Node refuses to start on what wine reports by default (Windows 7).
        subprocess.run([program, "winecfg", "-v", "win10"], env=env, capture_output=True, timeout=120)
        shim = os.path.join(ROOT, "scripts", "wine", "bcryptprimitives.c")
        built = subprocess.run(zig() + ["cc", "-target", "x86_64-windows-gnu", "-shared", "-o",
                                        os.path.join(system32, "bcryptprimitives.dll"), shim, "-ladvapi32"],
                               capture_output=True, text=True)
        report(built.returncode == 0, f"wine: the missing bcryptprimitives.dll stand-in built {built.stderr[-200:]}")
    return program, env
