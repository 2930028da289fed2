// A party's full name as payouts record it (senderName, beneficiaryName) and the list searches it:
// the name parts present, trimmed, in order. Mock mode echoes names the same way.
const NAME_PARTS = ['firstName', 'middleName', 'lastName', 'lastName2'];

export function fullName(person: Record<string, unknown>): string {
  return NAME_PARTS
    .map((k) => (typeof person[k] === 'string' ? (person[k] as string).trim() : ''))
    .filter(Boolean)
    .join(' ');
}
