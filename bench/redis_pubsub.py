"""CPU of one relay publish and its receipt through Redis pub/sub, in one process (issue 33).

The shared mode's relay (``paohuzi.server.relay``) publishes each process's packets of one loop turn and reads
the other processes' through a pub/sub subscription; redis-py parses every reply and pushed message in Python
unless ``hiredis`` (its C parser, in the ``server`` extra) is installed. This publishes ``--messages`` payloads of
the size of a packed ``update`` to a channel this process also reads and prints the process's CPU per
publish + receipt (median of ``--rounds``), and which parser redis-py used. A/B: run it with and without hiredis on
the path, alternating (docs/PERFORMANCE.md). ``--link``: through the relay's own connections instead
(:class:`paohuzi.server.resp.Link`, what the bus uses since issue 33: a publisher and a subscriber, one publish
awaited at a time as with redis-py). ``--uvloop``: on uvloop, the server's loop.

    .venv/bin/python bench/redis_pubsub.py
    .venv/bin/python bench/redis_pubsub.py --redis-url redis://127.0.0.1:6379/0 --messages 20000 --rounds 5
    PYTHONPATH=src .venv/bin/python bench/redis_pubsub.py --link --uvloop
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid

import redis.asyncio as redis
from redis.utils import HIREDIS_AVAILABLE

# One packed relay message as relay_messages.pack writes an ``Out`` (its line, then the owner's frame bytes).
PAYLOAD = b'{"k":"out","p":7,"c":"123456","t":"update","b":400}\n' + b"x" * 400


async def one_round(url: str, messages: int) -> float:
    """The process's CPU seconds per publish + receipt over ``messages`` of them."""
    client = redis.Redis.from_url(url)
    channel = f"bench-pubsub-{uuid.uuid4().hex}"
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe(channel)
        await pubsub.get_message(timeout=1)  # the subscription's confirmation
        start = time.process_time()

        async def publish() -> None:
            for _ in range(messages):
                await client.publish(channel, PAYLOAD)

        async def receive() -> None:
            got = 0
            while got < messages:
                message = await pubsub.get_message(timeout=5)
                if message is None:
                    raise SystemExit(f"only {got} of {messages} messages came back")
                got += message["type"] == "message"

        await asyncio.gather(publish(), receive())
        return (time.process_time() - start) / messages
    finally:
        await pubsub.aclose()
        await client.aclose()


async def one_link_round(url: str, messages: int) -> float:
    """The same through two :class:`~paohuzi.server.resp.Link` (publisher, subscriber)."""
    from paohuzi.server.resp import Link

    client = redis.Redis.from_url(url)
    channel = f"bench-pubsub-{uuid.uuid4().hex}"
    got = 0
    all_got = asyncio.get_running_loop().create_future()

    def received(_data: bytes) -> None:
        nonlocal got
        got += 1
        if got == messages:
            all_got.set_result(None)

    publisher = await Link.open(client, "bench-publish")
    subscriber = await Link.open(client, "bench-listen", received)
    try:
        await subscriber.subscribe(channel)
        start = time.process_time()
        for _ in range(messages):
            await publisher.execute([("PUBLISH", channel, PAYLOAD)])
        await asyncio.wait_for(all_got, 5)
        return (time.process_time() - start) / messages
    finally:
        publisher.close()
        subscriber.close()
        await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--link", action="store_true", help="the relay's own connections (resp.Link), not redis-py")
    parser.add_argument("--uvloop", action="store_true", help="on uvloop (the server's loop)")
    args = parser.parse_args()
    run = one_link_round if args.link else one_round
    if args.uvloop:
        import uvloop

        costs = [uvloop.run(run(args.redis_url, args.messages)) for _ in range(args.rounds)]
    else:
        costs = [asyncio.run(run(args.redis_url, args.messages)) for _ in range(args.rounds)]
    parser_name = "hiredis" if HIREDIS_AVAILABLE else "Python"
    client = "resp.Link (hiredis)" if args.link else f"redis-py, parser {parser_name}"
    print(
        f"client: {client}; CPU per publish + receipt: median {statistics.median(costs) * 1e6:.1f} µs "
        f"(rounds: {', '.join(f'{c * 1e6:.1f}' for c in costs)})"
    )


if __name__ == "__main__":
    main()
