// Hardhat's configuration for the local test chain (test/support/hardhat.ts): its built-in
// simulated network, nothing to compile (contracts are built by scripts/build-contracts.ts).
export default {};
