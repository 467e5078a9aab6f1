"""The fixed-window counters that the login throttle and the request quota count with."""

from datetime import UTC, datetime, timedelta

from app.storage.counters import count_in_window
from app.storage.database import get_db


def test_count_in_window_opens_one_window_at_a_time(app):
    with app.app_context():
        counters = get_db().rate_limits
        window = timedelta(seconds=60)
        assert [count_in_window(counters, "k", window)[0] for _ in range(3)] == [1, 2, 3]
        assert count_in_window(counters, "k", window, amount=5)[0] == 8
        counters.update_one({"_id": "k"}, {"$set": {"expireAt": datetime(2000, 1, 1, tzinfo=UTC)}})
        count, ends = count_in_window(counters, "k", window)
        assert count == 1 and 59 < (ends - datetime.now(UTC)).total_seconds() <= 60  # a new window
