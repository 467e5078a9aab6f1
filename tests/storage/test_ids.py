"""Ids order by creation time to the millisecond, whichever process made them."""

from datetime import UTC, datetime, timedelta

from app.storage import ids


def test_ids_of_two_processes_order_by_millisecond(monkeypatch):
    moment = datetime(2026, 11, 22, 12, 0, 0, 1000, tzinfo=UTC)
    monkeypatch.setitem(ids._state, "process", b"\xff\xff\xff")
    earlier = ids.new_id(moment)
    monkeypatch.setitem(ids._state, "process", b"\x00\x00\x00")  # another worker, lower random bytes
    later = ids.new_id(moment + timedelta(milliseconds=1))
    assert earlier < later
    assert earlier.generation_time == later.generation_time == moment.replace(microsecond=0)


def test_one_process_orders_ids_of_one_millisecond_by_its_counter():
    moment = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
    made = [ids.new_id(moment) for _ in range(5)]
    assert made == sorted(made) and len(set(made)) == 5


def test_a_boundary_separates_milliseconds():
    moment = datetime(2026, 11, 22, 12, 0, 0, 5000, tzinfo=UTC)
    made = ids.new_id(moment)
    ms = ids.ms_of(moment)
    assert ids.boundary(ms) <= made < ids.boundary(ms + 1)
    assert ids.ms_of_id(made) == ms
