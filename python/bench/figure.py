"""A benchmark's figure as a line `bench/figures.py` reads: `figure <id> <value> <unit>`."""


def figure(name: str, value: float, unit: str) -> None:
    print(f"figure {name} {value:.4g} {unit}", flush=True)
