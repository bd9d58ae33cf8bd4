"""The greedy whole-tensor planner: valid placements, lower-bounded by live bytes, deterministic."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from vmcu_tflite.lifetimes import Buffer
from vmcu_tflite.planner.tensor import greedy_offsets


@st.composite
def lifetimes(draw):
    n = draw(st.integers(1, 25))
    buffers = []
    for t in range(n):
        first = draw(st.integers(0, 15))
        buffers.append(Buffer(tensor=t, size=draw(st.integers(1, 5000)), first=first,
                              last=first + draw(st.integers(0, 6))))
    return buffers


@settings(max_examples=200, deadline=None)
@given(lifetimes(), st.sampled_from([1, 4, 16]))
def test_greedy_placement_is_valid_and_tight_enough(buffers, alignment):
    offsets = greedy_offsets(buffers, alignment)
    assert set(offsets) == {b.tensor for b in buffers}
    for i, a in enumerate(buffers):
        assert offsets[a.tensor] % alignment == 0
        for b in buffers[i + 1:]:
            if a.first <= b.last and b.first <= a.last:
                oa, ob = offsets[a.tensor], offsets[b.tensor]
                assert oa + a.size <= ob or ob + b.size <= oa, (a, b, oa, ob)
    pool = max(offsets[b.tensor] + b.size for b in buffers)
    steps = range(min(b.first for b in buffers), max(b.last for b in buffers) + 1)
    live_bound = max(sum(b.size for b in buffers if b.first <= s <= b.last) for s in steps)
    assert pool >= live_bound
    assert pool <= sum(b.size + alignment for b in buffers)
    assert greedy_offsets(list(reversed(buffers)), alignment) == offsets  # order of input is irrelevant
