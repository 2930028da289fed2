// How an admin command fails: a usage error exits 2 (with the usage text), a refusal exits 1.
export class UsageError extends Error {}
export class CommandError extends Error {}
