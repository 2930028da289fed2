import autocannon from 'autocannon';
const B = 'http://127.0.0.1:8094';
const t = await (await fetch(`${B}/oauth2/token`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from('demo-source-1:demo-secret-1').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&scope=payouts' })).json() as { access_token: string };
let n = 0;
const r = await autocannon({ url: `${B}/v2/payouts`, connections: 50, duration: 8, requests: [
  { method: 'POST', path: '/v2/payouts', headers: { authorization: `Bearer ${t.access_token}`, 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: JSON.stringify({ sourceMemberPayoutId: `d-${++n}`, payoutProviderId: 'MX_SPEI', destinationCcy: 'MXN', payoutAmt: 10, sender: { firstName: 'a', lastName: 'b' }, beneficiary: { firstName: 'a', lastName: 'b', accountNumber: '032180000118359719' } }) }) },
] });
console.log(r.requests.average, r.latency.p50, r.latency.p99, r.non2xx);
