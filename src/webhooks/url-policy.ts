// Which URLs an endpoint may have. Production: https only, and never an address in a private,
// loopback, link-local or otherwise non-public range, checked when the endpoint is registered and
// again on every connection (the connection uses exactly the address that was checked, so a DNS
// answer that changes in between cannot point a delivery inside our network). Sandbox: any https
// URL, and http to this machine's loopback for local development.
import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export type UrlPolicyMode = 'production' | 'sandbox';

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) NON_PUBLIC.addSubnet(network, prefix, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * An IPv6 address that carries an IPv4 address is judged as that IPv4 address: IPv4-mapped
 * (::ffff:a.b.c.d, also written ::ffff:7f00:1), IPv4-translated (::ffff:0:a.b.c.d), the
 * deprecated IPv4-compatible form (::a.b.c.d) and 6to4 (2002:AABB:CCDD::/48), so that
 * ::127.0.0.1 or 2002:7f00:1:: is not taken for a public address.
 */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const version = isIP(address);
  if (version === 4) return { address, family: 'ipv4' };
  if (version !== 6) return undefined;
  const groups = ipv6Groups(address);
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const v4 = (high: number, low: number) => ({ address: `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`, family: 'ipv4' as const });
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!); // mapped
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return v4(groups[6]!, groups[7]!); // translated
  if (zeros(0, 6) && !(groups[6] === 0 && groups[7]! <= 1)) return v4(groups[6]!, groups[7]!); // compatible (not :: or ::1)
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!); // 6to4
  return { address, family: 'ipv6' };
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part included). */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

export function isPublicAddress(address: string): boolean {
  const ip = normalise(address);
  return ip !== undefined && !NON_PUBLIC.check(ip.address, ip.family);
}

function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  const ip = normalise(hostname.replace(/^\[|\]$/g, ''));
  return ip !== undefined && LOOPBACK.check(ip.address, ip.family);
}

export type UrlCheck = { ok: true; url: string } | { ok: false; detail: string };

const refuse = (rule: string): UrlCheck => ({ ok: false, detail: `url: ${rule}` });

async function publicOnly(hostname: string): Promise<UrlCheck | undefined> {
  const literal = hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0) return isPublicAddress(literal) ? undefined : refuse('points to a private, loopback or reserved address');
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return refuse('points to a loopback address');
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  } catch {
    return refuse(`host ${hostname} does not resolve`);
  }
  const inside = addresses.find((a) => !isPublicAddress(a.address));
  return inside ? refuse(`host ${hostname} resolves to a private, loopback or reserved address (${inside.address})`) : undefined;
}

/** Checks an endpoint URL for the mode the service runs in; answers the URL as it will be used. */
export async function checkEndpointUrl(raw: string, mode: UrlPolicyMode): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refuse('must use https');
  if (url.username !== '' || url.password !== '') return refuse('must not carry credentials');
  if (url.hash !== '') return refuse('must not have a fragment');
  if (mode === 'sandbox') {
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return refuse('must use https (http is allowed to this machine only, in sandbox)');
    return { ok: true, url: url.href };
  }
  if (url.protocol !== 'https:') return refuse('must use https');
  return (await publicOnly(url.hostname)) ?? { ok: true, url: url.href };
}

/**
 * A `lookup` for outgoing connections in production: resolves as usual, then refuses to connect
 * when any answer is not a public address (DNS rebinding: the name was public at registration).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as dns.LookupAddress[];
    const inside = list.find((a) => !isPublicAddress(a.address));
    if (inside || list.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves to a non-public address (${inside?.address ?? 'none'})`), { code: 'EADDRNOTALLOWED' });
      return callback(refused, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
};
