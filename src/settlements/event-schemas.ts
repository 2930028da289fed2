// The `data` of the settlement area's review events (events list and webhooks). Each also carries
// eventId and sequence (added when events are read). Clients must ignore fields they do not know.
import { Type } from 'typebox';
import { StringEnum } from '../platform/schema.ts';
import { SettlementStatusSchema } from './schemas.ts';

const common = {
  settlementId: Type.String({ format: 'uuid' }),
  settlementStatus: SettlementStatusSchema,
  reviewId: Type.String({ format: 'uuid' }),
  step: StringEnum(['BUY', 'TRANSFER', 'SWAP', 'WITHDRAWAL'] as const, { description: 'The step whose money is in question' }),
  reviewReason: StringEnum(['VENUE_UNANSWERED', 'CHAIN_IN_DOUBT', 'ATTEMPTS_EXHAUSTED', 'FAILED_AFTER_MONEY_LEFT'] as const, {
    description: 'VENUE_UNANSWERED: the venue could not say what it did with the step; CHAIN_IN_DOUBT: the chain\'s answer does not settle the transfer; ATTEMPTS_EXHAUSTED: the step kept failing after money may have left; FAILED_AFTER_MONEY_LEFT: the step failed for good after the stablecoin was delivered',
  }),
  eventId: Type.String({ format: 'uuid', description: 'The event\'s id (also the webhook-id header)' }),
  sequence: Type.Integer({ minimum: 1, maximum: 1_000_000, description: '1, 2, 3 … per settlement: keep the highest seen, ignore older ones' }),
};

export const SettlementReviewOpenedData = Type.Object(
  { ...common, detail: Type.String() },
  { $id: 'SettlementReviewOpenedData', additionalProperties: true },
);

export const SettlementReviewResolvedData = Type.Object(
  {
    ...common,
    outcome: StringEnum(['MOVED', 'NOT_MOVED'] as const, {
      description: 'MOVED: the step\'s money moved and the settlement goes on; NOT_MOVED: it did not, the settlement fails and the funds are returned',
    }),
  },
  { $id: 'SettlementReviewResolvedData', additionalProperties: true },
);
