// A settlement's venue references: `{settlementId}:{STEP}`, the same on every repeat of a step, so a
// venue asked again answers as it did the first time and a lookup finds what was done.
const REFERENCE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):[A-Z_]+$/i;

/** The settlement a venue reference belongs to; throws on a reference the pipeline never makes. */
export function settlementIdOf(reference: string): string {
  const id = REFERENCE.exec(reference)?.[1];
  if (!id) throw new Error(`reference ${reference} is not a settlement step reference`);
  return id;
}

/** The reference of a settlement's step at its venue. */
export const referenceOf = (settlementId: string, step: 'BUY' | 'TRANSFER' | 'SWAP' | 'WITHDRAWAL') => `${settlementId}:${step}`;
