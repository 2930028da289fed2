// The three code lists: exactly the service description's values, in its order, with descriptions.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.ts';
import { bearer, json, token } from '../support/http.ts';

// Copied from the service description (ComplianceInfo), not from the code under test.
const EXPECTED: Record<string, string[]> = {
  '/v2/source-of-funds-codes': [
    'DONATIONS', 'LOTTERY', 'SALARY', 'FREELANCE_INCOME', 'RETIREMENT_FUND', 'PROPERTY_SALE', 'FOREX_GAINS', 'PENSION',
    'FAMILY_INCOME', 'FINANCIAL_SUPPORT_FROM_SPOUSE', 'LOANS', 'BUSINESS_INCOME', 'COMMISSION', 'PROPERTY_INVESTMENT',
    'SHARES_INVESTMENT', 'SAVINGS', 'BALANCE_FROM_TRAVELLING',
  ],
  '/v2/purpose-codes': [
    'CONSTRUCTION', 'SERVICES_PAYMENT', 'EDUCATION', 'MEDICAL', 'FAMILY_MAINTENANCE', 'PROPERTY_PURCHASE', 'UTILITIES',
    'PERSONAL_EXPENSES', 'INVESTMENT_GAINS', 'SAVINGS', 'SALARY', 'LEGAL_SERVICES', 'GRANTS', 'GIFTS', 'DONATIONS',
    'WEDDING', 'RELIGIOUS_EXPENSES', 'FREELANCE_PAYMENT',
  ],
  '/v2/relationship-codes': [
    'FAMILY', 'BUSINESS_PARTNER', 'FRIEND', 'FRIENDS_FAMILY', 'EMPLOYEE', 'SELF', 'SIBLING', 'PARENT', 'SPOUSE', 'CHILDREN',
    'SUPPLIER', 'NOT_RELATED', 'RELATIVE', 'IN_LAWS', 'SERVICE_PROVIDER', 'SPOUSE_EMPLOYEE', 'SPOUSE_EMPLOYEE_FAMILY',
    'CHARITY_RECIPIENT',
  ],
};

let service: TestService;
let payouts: string;
let noPayouts: string;
before(async () => {
  service = await startTestService();
  payouts = await token(service.url, { scope: 'payouts' });
  noPayouts = await token(service.url, { scope: 'settlements member' });
});
after(async () => {
  await service.stop();
});

for (const [path, codes] of Object.entries(EXPECTED)) {
  test(`${path} lists exactly the description's codes, each with a description`, async () => {
    const response = await fetch(`${service.url}${path}`, { headers: bearer(payouts) });
    assert.equal(response.status, 200);
    const body = await json<Array<{ code: string; description: string }>>(response);
    assert.deepEqual(body.map((e) => e.code), codes);
    for (const entry of body) {
      assert.deepEqual(Object.keys(entry), ['code', 'description']);
      assert.ok(entry.description.length > 0, `${entry.code} has no description`);
    }
  });

  test(`${path} needs the payouts scope`, async () => {
    const response = await fetch(`${service.url}${path}`, { headers: bearer(noPayouts) });
    assert.equal(response.status, 403);
    assert.equal((await json(response))['code'], 'INSUFFICIENT_SCOPE');
  });
}
