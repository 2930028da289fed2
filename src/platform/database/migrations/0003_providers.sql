-- Payout providers: a catalogue held as data. Limits and fees are JSON arrays of exact decimal
-- text; fields are the provider's request rules (see src/providers/model.ts).
CREATE TABLE payout_providers (
  payout_provider_id     text PRIMARY KEY CHECK (payout_provider_id ~ '^[A-Z_]+$' AND length(payout_provider_id) <= 50),
  name                   text NOT NULL,
  country_code           text NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
  destination_member_id  text NOT NULL REFERENCES members (member_id),
  currencies             text[] NOT NULL CHECK (cardinality(currencies) >= 1),
  payout_methods         text[] NOT NULL CHECK (payout_methods <@ ARRAY['BANK_ACCOUNT', 'CASH_PICKUP', 'WALLET']::text[] AND cardinality(payout_methods) >= 1),
  segments               text[] NOT NULL CHECK (segments <@ ARRAY['C2C', 'B2B']::text[] AND cardinality(segments) >= 1),
  limits                 jsonb NOT NULL,
  fees                   jsonb NOT NULL,
  fields                 jsonb NOT NULL,
  active                 boolean NOT NULL DEFAULT true,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payout_providers_country_idx ON payout_providers (country_code);

-- The sandbox seed's steps, each applied once.
CREATE TABLE sandbox_seed_steps (
  step        text PRIMARY KEY,
  applied_at  timestamptz NOT NULL DEFAULT now()
);
