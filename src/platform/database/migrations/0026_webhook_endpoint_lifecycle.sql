-- Webhook endpoints that members manage themselves: secret rotation with an overlap, and test
-- events bounded per endpoint (webhooks/endpoints.ts).

-- Rotation: the secret it replaced, sealed like the current one, and until when deliveries are
-- signed with it too (webhook-signature carries both, newest first). Both set or both unset.
-- Test events: a fixed one-minute window per endpoint counts the test events asked for in it.
ALTER TABLE webhook_endpoints
  ADD COLUMN previous_secret_sealed text,
  ADD COLUMN previous_secret_expires_at timestamptz,
  ADD COLUMN test_window_start timestamptz,
  ADD COLUMN test_window_count integer NOT NULL DEFAULT 0 CHECK (test_window_count >= 0),
  ADD CONSTRAINT webhook_endpoints_previous_secret_check
    CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL));
