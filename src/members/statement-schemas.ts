// GET /v2/destination-members/{destinationMemberId}/statement: its query and its answer.
import { Type } from 'typebox';
import { StringEnum } from '../platform/schema.ts';
import { CURSOR_LENGTH_MAX } from './statement-cursor.ts';
import { MOVEMENT_TYPES, STATEMENT_PAGE_SIZE_DEFAULT, STATEMENT_PAGE_SIZE_MAX } from './statement.ts';

export const StatementParams = Type.Object({ destinationMemberId: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

export const StatementQuery = Type.Object(
  {
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'Required when the destination member holds more than one currency' })),
    order: Type.Optional(StringEnum(['asc', 'desc'], { default: 'asc', description: 'asc: oldest first (default); desc: newest first' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: STATEMENT_PAGE_SIZE_MAX, default: STATEMENT_PAGE_SIZE_DEFAULT })),
    after: Type.Optional(Type.String({ minLength: 1, maxLength: CURSOR_LENGTH_MAX, description: 'The `nextAfter` of the previous page (opaque)' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Only movements at or after this instant (RFC 3339)' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Only movements before this instant (RFC 3339; half-open range)' })),
  },
  { additionalProperties: false },
);

const movementExample = {
  movementId: '3f0c9a52-8e1b-4d7a-b6c2-91e4d0a7f513',
  transferId: '3f0c9a52-8e1b-4d7a-b6c2-91e4d0a7f513',
  time: '2026-11-21T10:00:00.412Z',
  type: 'PAYOUT_RESERVED',
  affects: 'AVAILABLE_BALANCE',
  amount: -1000,
  runningBalance: 5000000,
  runningAvailableBalance: 4999000,
  payoutId: '0b8f8a4e-6f1d-4c1a-9d43-2a7c5e9b1f20',
  description: 'Payout amount reserved',
};

export const StatementMovement = Type.Object(
  {
    movementId: Type.String({ description: 'Stable id: the ledger transfer id; its post or release adds `:posted` or `:released`' }),
    transferId: Type.String({ format: 'uuid', description: 'The ledger transfer: a reservation and its post or release share it' }),
    time: Type.String({ format: 'date-time', description: 'When the ledger recorded the movement' }),
    type: StringEnum(MOVEMENT_TYPES),
    affects: StringEnum(['BALANCE', 'AVAILABLE_BALANCE', 'BOTH'], {
      description: 'What `amount` moves: a reservation or a release the available balance only, a posted reservation the balance only, anything else both',
    }),
    amount: Type.Number({ description: 'Signed and exact: positive adds to the prefund, negative takes from it' }),
    runningBalance: Type.Number({ description: 'balance after this movement' }),
    runningAvailableBalance: Type.Number({ description: 'availableBalance after this movement' }),
    payoutId: Type.Optional(Type.String({ format: 'uuid' })),
    settlementId: Type.Optional(Type.String({ format: 'uuid' })),
    description: Type.String(),
  },
  { $id: 'StatementMovement', additionalProperties: false, examples: [movementExample] },
);

export const statementExample = {
  destinationMemberId: 'PARTNER_MX',
  currency: 'MXN',
  order: 'asc',
  balance: 5000000,
  availableBalance: 4999000,
  movements: [movementExample],
  hasMore: false,
  nextAfter: 'WzEsIkRFTU9fU09VUkNFXzEiLCJQQVJUTkVSX01YIiwiTVhOIiwiNDIiLCI1MDAwMDAwMDAiLCI1MDAwMDAwMDAiLCI1MDAwMDAwMDAiLCI0OTk5MDAwMDAiXQ.Xy5i7pQ0x9v2mKc1s8Zr4A',
};

export const Statement = Type.Object(
  {
    destinationMemberId: Type.String(),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    order: StringEnum(['asc', 'desc']),
    balance: Type.Number({ description: 'The balance now, as GET /v2/destination-members shows it' }),
    availableBalance: Type.Number({ description: 'The available balance now, as GET /v2/destination-members shows it' }),
    movements: Type.Array(Type.Ref('StatementMovement')),
    hasMore: Type.Boolean({ description: 'More movements follow in this order (and range) after this page' }),
    nextAfter: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `after` for the next page. Oldest first it is always given (an empty page keeps it): ask again later for ' +
        'new movements. Newest first it is null once the oldest movement has been listed.',
    }),
  },
  { $id: 'Statement', additionalProperties: false, examples: [statementExample] },
);
