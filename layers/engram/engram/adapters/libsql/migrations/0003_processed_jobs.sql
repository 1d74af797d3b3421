-- Queue jobs already processed, so a redelivered SQS message changes nothing twice.
-- Rows older than the queue's retention can be deleted by the cleanup schedule.
CREATE TABLE processed_jobs (
    job_id        TEXT    PRIMARY KEY,
    kind          TEXT    NOT NULL,
    processed_at  INTEGER NOT NULL
);
CREATE INDEX processed_jobs_time ON processed_jobs (processed_at);
