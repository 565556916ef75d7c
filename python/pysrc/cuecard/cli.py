"""The `cuecard` console command of the wheel (`serve`, `tokenize`, `validate`): the same code as the binary."""
from __future__ import annotations

import sys

from ._cuecard import cli_main


def main() -> int:
    try:
        return cli_main(["cuecard", *sys.argv[1:]])
    except KeyboardInterrupt:  # Ctrl-C while serving: the server already stopped
        return 0


if __name__ == "__main__":
    sys.exit(main())
