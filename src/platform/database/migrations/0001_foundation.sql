-- Members: the fintechs that call the API (SOURCE) and the local partners that pay out (DESTINATION).
CREATE TABLE members (
  member_id     text PRIMARY KEY CHECK (member_id ~ '^[A-Z0-9_]+$' AND length(member_id) <= 64),
  name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  kind          text NOT NULL CHECK (kind IN ('SOURCE', 'DESTINATION')),
  country_code  text NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
  -- SOURCE: its one source currency; DESTINATION: the currencies it can pay out in.
  currencies    text[] NOT NULL CHECK (cardinality(currencies) >= 1),
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- A corridor lets a source member settle into, and pay out through, a destination member.
CREATE TABLE corridors (
  source_member_id       text NOT NULL REFERENCES members (member_id),
  destination_member_id  text NOT NULL REFERENCES members (member_id),
  destination_ccy        text NOT NULL CHECK (destination_ccy ~ '^[A-Z]{3}$'),
  active                 boolean NOT NULL DEFAULT true,
  -- the largest single settlement, in the source member's currency
  max_settlement_amt     numeric(20, 2) NOT NULL CHECK (max_settlement_amt > 0 AND max_settlement_amt <= 999999999.99),
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_member_id, destination_member_id, destination_ccy),
  CHECK (source_member_id <> destination_member_id)
);
CREATE INDEX corridors_destination_idx ON corridors (destination_member_id);

-- OAuth 2.0 clients of source members. The secret is kept only as HMAC-SHA-256 under a server key.
CREATE TABLE oauth_clients (
  client_id      text PRIMARY KEY CHECK (client_id ~ '^[A-Za-z0-9_.-]{3,100}$'),
  member_id      text NOT NULL REFERENCES members (member_id),
  name           text NOT NULL DEFAULT '',
  secret_hash    bytea NOT NULL,
  allowed_scopes text[] NOT NULL CHECK (allowed_scopes <@ ARRAY['payouts', 'settlements', 'member']::text[]),
  created_at     timestamptz NOT NULL DEFAULT now(),
  rotated_at     timestamptz,
  revoked_at     timestamptz
);
CREATE INDEX oauth_clients_member_idx ON oauth_clients (member_id);
