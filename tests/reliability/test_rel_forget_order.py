"""An interrupted forget cascade never leaves a record alive whose source is already forgotten.

The crash is simulated deterministically at every step of the forget (after the n-th file
removal); the SIGKILL harness in ``test_rel_crash.py`` hits the same windows at random.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import mem.format.store as store_mod
from mem.format.store import Store


class _Crash(BaseException):
    pass


def _lineage(root: Path) -> tuple[Store, str, int]:
    s = Store.init(root, actor="t@t")
    a = s.add("root fact", scope="default")
    b = s.add("summary of root", scope="default", derived_from=[a.id])
    c = s.add("summary of summary", scope="default", derived_from=[b.id, a.id])
    s.add("second child of root", scope="default", derived_from=[a.id])
    s.add("grandchild via c", scope="default", derived_from=[c.id])
    return s, a.id, 5


@pytest.mark.parametrize("crash_after", range(5))
def test_forget_cut_short_keeps_lineage_closed(
    crash_after: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tally: object
) -> None:
    s, root_id, n = _lineage(tmp_path / "s")
    real = store_mod.remove_file
    calls = {"n": 0}

    def remove_then_crash(path: Path, *, sync: bool = True) -> bool:
        if calls["n"] == crash_after:
            raise _Crash
        calls["n"] += 1
        return real(path, sync=sync)

    monkeypatch.setattr(store_mod, "remove_file", remove_then_crash)
    with pytest.raises(_Crash):
        s.forget([root_id], reason="cut short")
    monkeypatch.setattr(store_mod, "remove_file", real)
    s2 = Store.open(s.root)
    live = {r.id: r for r in s2.iter_records()}
    dangling = [
        (r.id, src) for r in live.values() for src in r.derived_from if s2.tombstones.find_id(src)
    ]
    assert dangling == []
    # the requested record goes last: until its own tombstone is written it is still there
    assert (root_id in live) == (crash_after < n - 1)
    # re-running the forget completes it
    s2.complete_interrupted_forgets()
    if crash_after < n - 1:
        s2.forget([root_id], reason="again")
    assert list(s2.iter_records()) == []
    assert len(list(s2.tombstones)) == n
