// The `data` of the payout area's events (events list and webhooks), one schema per event type.
// Each also carries eventId and sequence (added when events are read). More fields may be added
// in a minor version, so clients must ignore fields they do not know.
import { Type } from 'typebox';
import { Nullable, StringEnum } from '../platform/schema.ts';
import { CancellationStatus, PayoutStatus } from './schemas.ts';

const common = {
  payoutId: Type.String({ format: 'uuid' }),
  sourceMemberPayoutId: Type.String({ maxLength: 50 }),
  eventId: Type.String({ format: 'uuid', description: 'The event\'s id (also the webhook-id header)' }),
  sequence: Type.Integer({ minimum: 1, maximum: 1_000_000, description: '1, 2, 3 … per payout: keep the highest seen, ignore older ones' }),
};

const statusFields = {
  payoutStatus: PayoutStatus,
  payoutCancellationStatus: Type.Optional(CancellationStatus),
  cashoutStatus: Type.Optional(Type.String()),
  rejectReason: Type.Optional(Type.String()),
};

export const PayoutStatusChangedData = Type.Object(
  { ...common, ...statusFields, previousStatus: Nullable(PayoutStatus, { description: 'null on creation' }) },
  { $id: 'PayoutStatusChangedData', additionalProperties: true },
);

export const PayoutCancellationStatusChangedData = Type.Object(
  { ...common, ...statusFields, previousStatus: Nullable(CancellationStatus, { description: 'The previous cancellation status; null when the cancellation was asked' }) },
  { $id: 'PayoutCancellationStatusChangedData', additionalProperties: true },
);

export const PayoutReviewStatusChangedData = Type.Object(
  {
    ...common,
    payoutStatus: PayoutStatus,
    reviewStatus: StringEnum(['OPEN', 'RESOLVED'] as const),
    reviewReason: StringEnum(['STATUS_UNKNOWN', 'CANCEL_UNKNOWN', 'CONTRADICTION'] as const, {
      description: 'STATUS_UNKNOWN: the partner could not be asked what became of the payout; CANCEL_UNKNOWN: a cancellation could not be settled; CONTRADICTION: the partner said something that contradicts the payout',
    }),
    resolution: Type.Optional(StringEnum(['PAID', 'NOT_PAID', 'RETRY', 'ACKNOWLEDGED'] as const)),
  },
  { $id: 'PayoutReviewStatusChangedData', additionalProperties: true },
);
