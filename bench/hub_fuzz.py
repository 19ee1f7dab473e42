"""Random and malformed messages on every topic pattern the club's hub subscribes to (hypothesis draws
them, seeded): `<prefix>/+/available`, `+/state`, `+/events` and `+/reply/replay`.

Tables the fuzzer makes up get anything at all, well-formed events and answers to the hub's own replay
requests included, and each such message again as byte-level mutants (cut short, a byte changed, a
slice repeated), drawn from a `random.Random` of the same seed. The good tables' own topics get only
what a table never sends (bytes that are not JSON, nesting past 64, an event whose envelope is broken,
a state that is not an object, an availability that is neither word): the hub must drop all of it
without a trace on them. What a good table's own
well-formed events could be forged into is an open broker's problem (docs/club.md: use the ACL).

Used by tests/club/test_club_hub_fuzz.py (a short form in the suite) and bench/bench_hub_fuzz.py.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from table import registry
from table.live.events import KINDS as KNOWN_KINDS

KINDS = ("available", "state", "events", "reply/replay")
# every kind a table's log may hold (the events' own and each rule system's live game, as the registry
# lists them), and one that is empty
EVENT_KINDS = (*sorted(KNOWN_KINDS), *registry.names(), "")
FIELDS = ("id", "model", "target", "from", "to", "distance", "scene", "result", "params", "label", "message",
          "units", "terrain", "args", "answer", "action", "seed", "hex", "marker", "by", "status")

Message = tuple[str, bytes, bool]            # topic, payload, retained


def _dumps(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode()


scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=6)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=6), max_leaves=12)
seqs = st.one_of(st.integers(min_value=-5, max_value=60), st.integers(min_value=2**62, max_value=2**66),
                 st.integers(min_value=10**5, max_value=10**12), scalars)


@st.composite
def nested(draw: st.DrawFn) -> bytes:
    """Arrays or objects nested from just past the strict reader's 64 to 100,000 deep (some unclosed)."""
    depth = draw(st.one_of(st.integers(65, 200), st.sampled_from([1000, 20_000, 100_000])))
    opening, closing = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    closed = draw(st.booleans())
    return (opening * depth + ("1" if opening != "[" else "") + (closing * depth if closed else "")).encode()


@st.composite
def not_strict(draw: st.DrawFn) -> bytes:
    """Numbers that are not strict JSON: integers past Python's 4,300 digits, NaN, infinities."""
    digits = draw(st.sampled_from([4301, 6000]))
    return draw(st.sampled_from([b'{"seq": %s, "game": 1, "ts": 1, "kind": "select"}' % (b"9" * digits),
                                 b'{"seq": 1, "game": 1, "ts": 1e400, "kind": "select"}',
                                 b'{"seq": NaN, "kind": "select"}', b"[Infinity]", b"-Infinity"]))


BIG_SEQS = st.sampled_from([2**63, 10**19, 10**20, 10**300]).map(
    lambda n: b'{"seq": %d, "game": 1, "ts": 1, "kind": "select", "model": "m1"}' % n)
BAD = {"seq": [{}, [1], "1", None, True, 0, -1, 1.5, 2**63],            # what breaks each envelope field
       "game": [{}, [1], "1", None, True, 0, -1, 1.5, 2**63],
       "ts": [{}, [1], "1", None, True, -1, -0.5]}


@st.composite
def events(draw: st.DrawFn, valid_envelope: bool | None = None) -> dict[str, Any]:
    """An event-shaped object: a plausible envelope (or not), a kind, some of the events' fields."""
    good = draw(st.booleans()) if valid_envelope is None else valid_envelope
    event: dict[str, Any] = {"seq": draw(st.integers(1, 400) if good else seqs),
                             "game": draw(st.integers(1, 3) if good else st.one_of(scalars, json_values)),
                             "ts": draw(st.floats(0, 2e9) if good else st.one_of(scalars, json_values)),
                             "kind": draw(st.sampled_from(EVENT_KINDS) | st.text(max_size=10))}
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=4, unique=True)):
        event[name] = draw(json_values)
    if not good:                              # at least one envelope field broken
        key = draw(st.sampled_from(sorted(BAD)))
        event[key] = draw(st.sampled_from(BAD[key]))
    return event


@st.composite
def replies(draw: st.DrawFn, request_id: str) -> dict[str, Any]:
    """A `reply/replay` answer, to the hub's own request (its id, any `after`) or not."""
    after = draw(st.integers(0, 400) | st.integers(2**62, 2**64))
    ids = [f"{request_id}-{after}", f"{request_id}-x", "someone-else", f"{request_id}-"]
    rid = draw(st.sampled_from(ids) | json_values)
    result = draw(st.one_of(st.fixed_dictionaries({"events": st.lists(events(), max_size=8),
                                                   "more": st.booleans() | scalars}), json_values))
    return {"ok": draw(st.sampled_from([True, False, 1, None])), "command": "replay", "result": result,
            "request_id": rid, "error": draw(scalars)}


OVERSIZED = b"[" + b"0," * 600_000 + b"0]"        # over a megabyte


def anything(request_id: str) -> st.SearchStrategy[bytes]:
    """Any payload at all, for a made-up table (one in a hundred over the hub's size limit)."""
    rest = st.one_of(st.binary(max_size=300), json_values.map(_dumps), nested(), not_strict(), BIG_SEQS,
                     events().map(_dumps), replies(request_id).map(_dumps),
                     st.sampled_from([b"online", b"offline", b"", b"\xff\xfe", b"ONLINE", b"online\n"]))
    return st.integers(0, 99).flatmap(lambda n: st.just(OVERSIZED) if n == 0 else rest)


def never_sent(kind: str) -> st.SearchStrategy[bytes]:
    """What a table never sends on `kind`: the hub must drop it."""
    junk = st.one_of(st.binary(max_size=200).filter(lambda b: not b.strip().startswith(b"{")), nested(),
                     not_strict())
    if kind == "events":
        return st.one_of(junk, BIG_SEQS, events(valid_envelope=False).map(_dumps))
    if kind == "state":
        return st.one_of(junk, st.one_of(scalars, st.lists(json_values, max_size=4)).map(_dumps))
    if kind == "available":
        return st.one_of(junk, st.text(max_size=20).filter(lambda t: t not in ("online", "offline"))
                         .map(str.encode))
    return junk                                   # reply/replay: not an object (or not strict JSON)


# what a broker takes in a topic (no wildcards, no level separator, no control or non-characters)
TOPIC_CHARACTERS = st.characters(whitelist_categories=("L", "N", "P", "S", "Zs"), blacklist_characters="+#/",
                                 max_codepoint=0xFFFD)


@st.composite
def messages(draw: st.DrawFn, prefix: str, good: tuple[str, ...], request_id: str) -> Message:
    kind = draw(st.sampled_from(KINDS))
    table = draw(st.one_of(st.sampled_from(good), st.integers(0, 40).map(lambda n: f"fz-{n}"),
                           st.text(alphabet=TOPIC_CHARACTERS, min_size=1, max_size=70)))
    payload = draw(never_sent(kind) if table in good else anything(request_id))
    return f"{prefix}/{table}/{kind}", payload, draw(st.booleans()) and kind != "reply/replay"


@dataclass
class Sent:
    messages: int = 0
    bytes: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)


def mutants(payload: bytes, rng: random.Random, count: int) -> list[bytes]:
    """`payload` cut short, with one byte changed, or with a slice of it repeated."""
    out = []
    for _ in range(count):
        at = rng.randrange(len(payload) + 1)
        how = rng.randrange(3)
        if how == 0 or not payload:
            out.append(payload[:at])
        elif how == 1:
            at = min(at, len(payload) - 1)
            out.append(payload[:at] + bytes([rng.randrange(256)]) + payload[at + 1:])
        else:
            repeated = payload[at:at + rng.randrange(1, 64)] * rng.randrange(2, 50)
            out.append(payload[:at] + repeated + payload[at:])
    return out


def fuzz(publish: Callable[[list[Message]], None], *, examples: int, rng_seed: int, prefix: str,
         good: tuple[str, ...], request_id: str, batch: int = 25, mutated: int = 2) -> Sent:
    """Publish `examples` batches of `batch` / 2 to `batch` drawn messages each (with `mutated` mutants
    of each made-up table's message), drawn with `rng_seed`."""
    sent = Sent()
    rng = random.Random(rng_seed)
    goods = {f"{prefix}/{table}/" for table in good}

    @seed(rng_seed)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.lists(messages(prefix, good, request_id), min_size=batch // 2, max_size=batch))
    def one_batch(drawn: list[Message]) -> None:
        drawn = [*drawn, *((topic, mutant, retain) for topic, payload, retain in drawn
                           if not any(topic.startswith(g) for g in goods) and len(payload) < 1 << 18
                           for mutant in mutants(payload, rng, mutated))]
        publish(drawn)
        for topic, payload, _ in drawn:
            kind = topic.split("/", 2)[-1]
            sent.messages += 1
            sent.bytes += len(payload)
            sent.by_kind[kind] = sent.by_kind.get(kind, 0) + 1

    one_batch()
    return sent


@contextmanager
def publisher(host: str, port: int) -> Iterator[Callable[[list[Message]], None]]:
    """A paho client that publishes a batch (QoS 1) and waits until the broker has it all."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="hub-fuzzer", protocol=mqtt.MQTTv311)
    client.max_inflight_messages_set(100)
    client.connect(host, port, 30)
    client.loop_start()

    def publish(batch: list[Message]) -> None:
        infos = [client.publish(topic, payload, qos=1, retain=retain) for topic, payload, retain in batch]
        for info in infos:
            info.wait_for_publish(30)

    try:
        yield publish
    finally:
        client.disconnect()
        client.loop_stop()
