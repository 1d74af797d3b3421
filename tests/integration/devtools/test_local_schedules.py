from engram import MemorySettingsUpdate
from engram.domain.models import MemoryCreate
from shared.devtools.local_schedules import Job, LocalSchedules


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_jobs_run_when_due_and_failures_wait_for_their_next_slot(engine, caplog):
    clock = Clock()
    calls = []

    def boom(_engine):
        raise RuntimeError("disk on fire")

    jobs = [Job("a", 10, lambda e: calls.append("a")), Job("b", 60, boom)]
    schedules = LocalSchedules(lambda: engine, jobs, clock=clock)
    assert schedules.run_due() == ["a"]  # b failed: logged, not raised
    assert "scheduled b failed" in caplog.text
    clock.t = 5
    assert schedules.run_due() == []
    clock.t = 10
    assert schedules.run_due() == ["a"]
    clock.t = 61
    assert schedules.run_due() == ["a"]  # b tried again at its slot, failed again
    assert calls == ["a", "a", "a"]


def test_the_default_jobs_do_their_work(engine):
    engine.memories.create(MemoryCreate(api_key_id="k1", content="waiting for a vector"))
    engine.settings.update(MemorySettingsUpdate(auto_summarize=True))
    clock = Clock()
    assert LocalSchedules(lambda: engine, clock=clock).run_due() == [
        "reindex",
        "cleanup",
        "summarize",
    ]
    assert engine.vectors.rows.pending_count() == 0
