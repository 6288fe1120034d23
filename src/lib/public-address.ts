// Whether a URL's host reaches the public internet, as far as the URL itself tells: the address
// rule of webhook receivers (and of anything else that fetches a URL a user gave). A literal
// address in a private, link-local, carrier-grade-NAT, metadata or other special range could
// reach the operator's own network; a DNS name is taken as public, since no lookup is possible
// here (localhost names excepted, RFC 6761).

/** What a host reaches: `range` names the special range a non-public address sits in. */
export type HostReach = { kind: 'public' } | { kind: 'loopback' } | { kind: 'non-public'; range: string };

const PUBLIC: HostReach = { kind: 'public' };
const LOOPBACK: HostReach = { kind: 'loopback' };
const nonPublic = (range: string): HostReach => ({ kind: 'non-public', range });

type Range = { base: bigint; bits: number; name: string };

const v4Range = (cidr: string, name: string): Range => {
  const [address = '', bits] = cidr.split('/');
  return { base: BigInt(ipv4Value(address) ?? 0), bits: Number(bits), name: `${name} (${cidr})` };
};

const LOOPBACK_V4 = v4Range('127.0.0.0/8', 'loopback');

/** IANA's IPv4 special-purpose ranges that are not globally reachable, plus multicast; first match wins. */
const IPV4_RANGES: Range[] = [
  v4Range('0.0.0.0/8', 'this network'),
  v4Range('10.0.0.0/8', 'private'),
  v4Range('100.64.0.0/10', 'carrier-grade NAT'),
  v4Range('169.254.0.0/16', 'link-local and cloud metadata'),
  v4Range('172.16.0.0/12', 'private'),
  v4Range('192.0.0.0/24', 'IETF protocol assignments'),
  v4Range('192.0.2.0/24', 'documentation'),
  v4Range('192.168.0.0/16', 'private'),
  v4Range('198.18.0.0/15', 'benchmarking'),
  v4Range('198.51.100.0/24', 'documentation'),
  v4Range('203.0.113.0/24', 'documentation'),
  v4Range('224.0.0.0/4', 'multicast'),
  v4Range('255.255.255.255/32', 'broadcast'),
  v4Range('240.0.0.0/4', 'reserved'),
];

const v6Range = (cidr: string, name: string): Range => {
  const [address = '', bits] = cidr.split('/');
  return { base: ipv6Value(address) ?? 0n, bits: Number(bits), name: `${name} (${cidr})` };
};

/** IPv6 ranges whose last 32 bits (or, for 6to4, bits 16–47) are an IPv4 address it reaches. */
const MAPPED = v6Range('::ffff:0:0/96', 'IPv4-mapped');
const NAT64 = v6Range('64:ff9b::/96', 'NAT64');
const SIX_TO_FOUR = v6Range('2002::/16', '6to4');
const GLOBAL_UNICAST = v6Range('2000::/3', 'global unicast');

/** Outside 2000::/3 nothing is public; inside it, these are not either. First match wins. */
const IPV6_RANGES: Range[] = [
  v6Range('::/128', 'unspecified'),
  v6Range('::/96', 'IPv4-compatible'),
  v6Range('64:ff9b:1::/48', 'local NAT64'),
  v6Range('fc00::/7', 'unique local (private) and cloud metadata'),
  v6Range('fe80::/10', 'link-local'),
  v6Range('fec0::/10', 'site-local'),
  v6Range('ff00::/8', 'multicast'),
  v6Range('2001::/23', 'IETF protocol assignments'),
  v6Range('2001:db8::/32', 'documentation'),
  v6Range('3fff::/20', 'documentation'),
];

const within = (value: bigint, range: Range, width: number) =>
  value >> BigInt(width - range.bits) === range.base >> BigInt(width - range.bits);

/**
 * What `hostname` (a URL's `hostname`: `[…]` around IPv6) reaches. IPv4 in any form the URL
 * parser accepts (`2130706433`, `0x7f.1`, `0177.0.0.1`) and IPv6 with an IPv4 inside
 * (`::ffff:10.0.0.1`, NAT64, 6to4) are read as the address they are. Loopback (127.0.0.0/8, ::1,
 * `localhost` and `*.localhost`) reaches only this machine; every other special range is
 * non-public. A DNS name is public; a host no http URL could have is non-public.
 */
export function hostReach(hostname: string): HostReach {
  const host = canonicalHost(hostname);
  if (host === undefined) return nonPublic('not a valid host');
  if (host.startsWith('[')) {
    const value = ipv6Value(host.slice(1, -1));
    return value === undefined ? nonPublic('not a valid IPv6 address') : ipv6Reach(value);
  }
  const v4 = ipv4Value(host);
  if (v4 !== undefined) return ipv4Reach(v4);
  const name = host.replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') ? LOOPBACK : PUBLIC;
}

/**
 * The host as an http URL would read it. A URL's own `hostname` comes back unchanged; a caller's
 * string (or a non-special scheme's opaque host) gets the URL parser's IPv4 and IPv6 rewriting.
 */
function canonicalHost(hostname: string): string | undefined {
  const host = hostname.toLowerCase();
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  if (!/^[0-9a-fx.]+$|^\[[0-9a-f:.]+\]$/.test(bracketed)) return host;
  try {
    return new URL(`http://${bracketed}/`).hostname;
  } catch {
    return undefined;
  }
}

function ipv4Reach(value: number): HostReach {
  const address = BigInt(value);
  if (within(address, LOOPBACK_V4, 32)) return LOOPBACK;
  const range = IPV4_RANGES.find((r) => within(address, r, 32));
  return range ? nonPublic(range.name) : PUBLIC;
}

function ipv6Reach(value: bigint): HostReach {
  if (value === 1n) return LOOPBACK;
  const low32 = Number(value & 0xffff_ffffn);
  // v4-mapped is the IPv4 address itself (a dual-stack socket connects to it), loopback included.
  if (within(value, MAPPED, 128)) return ipv4Reach(low32);
  // A translator reaches the embedded address from its own network: only a public one is safe.
  if (within(value, NAT64, 128)) return embedded(ipv4Reach(low32), NAT64);
  if (within(value, SIX_TO_FOUR, 128)) return embedded(ipv4Reach(Number((value >> 80n) & 0xffff_ffffn)), SIX_TO_FOUR);
  const range = IPV6_RANGES.find((r) => within(value, r, 128));
  if (range) return nonPublic(range.name);
  return within(value, GLOBAL_UNICAST, 128) ? PUBLIC : nonPublic('reserved (outside 2000::/3)');
}

const embedded = (reach: HostReach, via: Range): HostReach =>
  reach.kind === 'public'
    ? PUBLIC
    : nonPublic(`${via.name} of ${reach.kind === 'loopback' ? 'loopback' : reach.range}`);

/** Dotted decimal (what the URL parser writes) as a 32-bit number; undefined for anything else. */
function ipv4Value(text: string): number | undefined {
  const octets = text.split('.');
  if (octets.length !== 4 || !octets.every((octet) => /^(0|[1-9]\d{0,2})$/.test(octet) && Number(octet) <= 255)) {
    return undefined;
  }
  return octets.reduce((value, octet) => value * 256 + Number(octet), 0);
}

/** Hex groups with at most one `::` (what the URL parser writes) as a 128-bit number. */
function ipv6Value(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = halves.map((half) => (half === '' ? [] : half.split(':')));
  const [head = [], tail = []] = groups;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...tail];
  if (!all.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  return all.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}
