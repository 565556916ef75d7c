"""The Go module (dist/go): a Go module proxy's layout for cuecard.dev/cuecard (its version's .zip, .mod and the
`list`); a new module here `go get`s it from that folder (GOPROXY=file://..., the checksum database off for a module
that is not published) and runs a test against it, as a user's first test does. The module is one for every
GOOS/GOARCH (the engine is WebAssembly run by wazero): builds of
the test binary are checked to compile with CGO_ENABLED=0 (`windows/amd64` and `darwin/arm64`)."""

import os
import shutil
import subprocess
import tempfile

from . import common
from .common import VERSION, missing, report

FIRST_TEST = """package first

import (
	"net/http"
	"strings"
	"testing"

	"cuecard.dev/cuecard"
)

func TestFirst(t *testing.T) {
	mock := cuecard.New(t, cuecard.Responds("Hello!"))
	client := &http.Client{Transport: mock.Transport()}
	response, err := client.Post("https://api.openai.com/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`))
	if err != nil || response.StatusCode != 200 {
		t.Fatalf("%v %v", response, err)
	}
	mock.Require(t, cuecard.LastUserMessageContains("Hi"))
}
"""


def check():
    proxy = os.path.join(common.DIST, "go")
    zipped = os.path.join(proxy, "cuecard.dev", "cuecard", "@v", f"v{VERSION}.zip")
    if not os.path.exists(zipped):
        missing(f"go: {zipped}")
        return
    go = shutil.which("go") or "/usr/local/go/bin/go"
    work = tempfile.mkdtemp()
    try:
        # The module is not published: the checksum database is not asked for it (GONOSUMDB); its dependency
        # (wazero) comes from the Go proxy as for any user.
        upstream = subprocess.run([go, "env", "GOPROXY"], capture_output=True, text=True).stdout.strip()
        env = dict(os.environ, GOPROXY=f"file://{proxy},{upstream or 'https://proxy.golang.org'}",
                   GONOSUMDB="cuecard.dev", GOFLAGS="-mod=mod")
        run = lambda *command, **extra: subprocess.run(command, cwd=work, env=dict(env, **extra),  # noqa: E731
                                                       capture_output=True, text=True, timeout=600)
        steps = [run(go, "mod", "init", "example.test/first")]
        with open(os.path.join(work, "first_test.go"), "w") as test:
            test.write(FIRST_TEST)
        steps.append(run(go, "get", f"cuecard.dev/cuecard@v{VERSION}"))
        steps.append(run(go, "test", "-count=1", "./..."))
        failed = next((s for s in steps if s.returncode != 0), None)
        report(failed is None, f"go: cuecard.dev/cuecard v{VERSION} fetched from dist/go as a module proxy, a first "
               f"test passes{'' if failed is None else ': ' + (failed.stdout + failed.stderr)[-600:]}")
        for goos, goarch in [("windows", "amd64"), ("darwin", "arm64")]:
            built = run(go, "test", "-c", "-o", os.devnull, ".", GOOS=goos, GOARCH=goarch, CGO_ENABLED="0")
            report(built.returncode == 0, f"go: the test binary builds for {goos}/{goarch} without cgo"
                   f"{'' if built.returncode == 0 else ': ' + built.stderr[-400:]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
