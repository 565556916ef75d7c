"""The one asyncio helper the compiled module uses: an awaitable that waits, then answers or raises."""
from __future__ import annotations

import asyncio
from typing import Any, Optional


async def later(delay_ms: int, value: Any, error: Optional[BaseException]) -> Any:
    """Waits `delay_ms` without blocking the event loop, then returns `value` or raises `error`."""
    if delay_ms:
        await asyncio.sleep(delay_ms / 1000)
    if error is not None:
        raise error
    return value
