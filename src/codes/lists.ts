// The three static code lists of the service description, in its order, each with a description.
export interface CodeEntry {
  code: string;
  description: string;
}

export const SOURCE_OF_FUNDS_CODES: readonly CodeEntry[] = [
  { code: 'DONATIONS', description: 'Donations received' },
  { code: 'LOTTERY', description: 'Lottery or gambling winnings' },
  { code: 'SALARY', description: 'Salary or wages' },
  { code: 'FREELANCE_INCOME', description: 'Income from freelance work' },
  { code: 'RETIREMENT_FUND', description: 'Retirement fund withdrawal' },
  { code: 'PROPERTY_SALE', description: 'Proceeds of a property sale' },
  { code: 'FOREX_GAINS', description: 'Gains from foreign exchange trading' },
  { code: 'PENSION', description: 'Pension payments' },
  { code: 'FAMILY_INCOME', description: 'Income of the family' },
  { code: 'FINANCIAL_SUPPORT_FROM_SPOUSE', description: 'Financial support from a spouse' },
  { code: 'LOANS', description: 'Loan proceeds' },
  { code: 'BUSINESS_INCOME', description: 'Income from a business' },
  { code: 'COMMISSION', description: 'Commission earned' },
  { code: 'PROPERTY_INVESTMENT', description: 'Returns on property investment' },
  { code: 'SHARES_INVESTMENT', description: 'Returns on shares or other securities' },
  { code: 'SAVINGS', description: 'Personal savings' },
  { code: 'BALANCE_FROM_TRAVELLING', description: 'Funds left over from travelling' },
];

export const PURPOSE_CODES: readonly CodeEntry[] = [
  { code: 'CONSTRUCTION', description: 'Construction work or materials' },
  { code: 'SERVICES_PAYMENT', description: 'Payment for services' },
  { code: 'EDUCATION', description: 'Education or tuition fees' },
  { code: 'MEDICAL', description: 'Medical expenses' },
  { code: 'FAMILY_MAINTENANCE', description: 'Support of family members' },
  { code: 'PROPERTY_PURCHASE', description: 'Purchase of property' },
  { code: 'UTILITIES', description: 'Utility bills' },
  { code: 'PERSONAL_EXPENSES', description: 'Personal expenses' },
  { code: 'INVESTMENT_GAINS', description: 'Transfer of investment gains' },
  { code: 'SAVINGS', description: 'Transfer to savings' },
  { code: 'SALARY', description: 'Payment of salary or wages' },
  { code: 'LEGAL_SERVICES', description: 'Legal services' },
  { code: 'GRANTS', description: 'Grants' },
  { code: 'GIFTS', description: 'Gifts' },
  { code: 'DONATIONS', description: 'Donations' },
  { code: 'WEDDING', description: 'Wedding expenses' },
  { code: 'RELIGIOUS_EXPENSES', description: 'Religious expenses' },
  { code: 'FREELANCE_PAYMENT', description: 'Payment for freelance work' },
];

export const RELATIONSHIP_CODES: readonly CodeEntry[] = [
  { code: 'FAMILY', description: 'Family member' },
  { code: 'BUSINESS_PARTNER', description: 'Business partner' },
  { code: 'FRIEND', description: 'Friend' },
  { code: 'FRIENDS_FAMILY', description: 'Family of a friend' },
  { code: 'EMPLOYEE', description: 'Employee' },
  { code: 'SELF', description: 'The sender themself' },
  { code: 'SIBLING', description: 'Brother or sister' },
  { code: 'PARENT', description: 'Parent' },
  { code: 'SPOUSE', description: 'Spouse' },
  { code: 'CHILDREN', description: 'Son or daughter' },
  { code: 'SUPPLIER', description: 'Supplier' },
  { code: 'NOT_RELATED', description: 'No relationship' },
  { code: 'RELATIVE', description: 'Other relative' },
  { code: 'IN_LAWS', description: 'Relative by marriage' },
  { code: 'SERVICE_PROVIDER', description: 'Provider of a service' },
  { code: 'SPOUSE_EMPLOYEE', description: 'Employee of the spouse' },
  { code: 'SPOUSE_EMPLOYEE_FAMILY', description: 'Family of an employee of the spouse' },
  { code: 'CHARITY_RECIPIENT', description: 'Recipient of charity' },
];

/** The code values alone, for the ComplianceInfo enums of the payout schemas. */
export const codesOf = (list: readonly CodeEntry[]) => list.map((entry) => entry.code);
