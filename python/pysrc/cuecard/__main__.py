"""`python -m cuecard serve|tokenize|validate`: the `cuecard` command, for environments without it on PATH."""
import sys

from .cli import main

sys.exit(main())
