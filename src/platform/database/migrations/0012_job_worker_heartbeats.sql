-- graphile-worker leaves a job locked by a worker that died (kill -9, a lost machine) for four
-- hours before another may take it. Each live worker records a heartbeat here; the unlock sweep
-- (src/platform/jobs.ts) frees the jobs of workers whose heartbeat stopped, so a crash delays a
-- locked job by about a minute at most, not four hours.
CREATE TABLE job_worker_heartbeats (
  worker_id     text PRIMARY KEY,
  heartbeat_at  timestamptz NOT NULL
);
