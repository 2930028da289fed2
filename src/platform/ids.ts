// Identifiers: payoutId, settlementId and rateId are UUIDs (CONTRACT section 2). A malformed one
// is looked up as nothing rather than sent to PostgreSQL as a uuid it would refuse.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (text: string): boolean => UUID.test(text);
