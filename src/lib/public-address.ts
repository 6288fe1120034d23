// Whether a URL's host reaches the public internet, as far as the URL itself tells: the address
// rule of webhook receivers and of upload_from_url. A literal address in a private, link-local,
// carrier-grade-NAT, metadata or other special range could reach the operator's own network, and
// so could a name that only a local network resolves (`.local`, `.internal`, a single label such
// as `metadata`) or one a wildcard DNS service resolves to the address written in it
// (`10.0.0.1.nip.io`). Loopback reaches only this machine: a target may name it only in
// development (ALLOW_LOOPBACK_TARGETS). Any other DNS name is taken as public: no lookup is
// possible here. Addresses are parsed and matched by ipaddr.js; which ranges are refused, and
// why, is our list below.
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** What a host reaches: `range` names the special range (or kind of name) a non-public host is in. */
export type HostReach = { kind: 'public' } | { kind: 'loopback' } | { kind: 'non-public'; range: string };

const PUBLIC: HostReach = { kind: 'public' };
const LOOPBACK: HostReach = { kind: 'loopback' };
const nonPublic = (range: string): HostReach => ({ kind: 'non-public', range });

type Range<T> = { cidr: [T, number]; name: string };

const v4Range = (cidr: string, name: string): Range<IPv4> => ({
  cidr: ipaddr.IPv4.parseCIDR(cidr),
  name: `${name} (${cidr})`,
});
const v6Range = (cidr: string, name: string): Range<IPv6> => ({
  cidr: ipaddr.IPv6.parseCIDR(cidr),
  name: `${name} (${cidr})`,
});

const LOOPBACK_V4 = v4Range('127.0.0.0/8', 'loopback');
const LOOPBACK_V6 = v6Range('::1/128', 'loopback');

/** IANA's IPv4 special-purpose ranges that are not globally reachable, plus multicast; first match wins. */
const IPV4_RANGES: Range<IPv4>[] = [
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

/** IPv6 ranges whose last 32 bits (or, for 6to4, bits 16–47) are an IPv4 address it reaches. */
const MAPPED = v6Range('::ffff:0:0/96', 'IPv4-mapped');
const NAT64 = v6Range('64:ff9b::/96', 'NAT64');
const SIX_TO_FOUR = v6Range('2002::/16', '6to4');
const GLOBAL_UNICAST = v6Range('2000::/3', 'global unicast');

/** Outside 2000::/3 nothing is public; inside it, these are not either. First match wins. */
const IPV6_RANGES: Range<IPv6>[] = [
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

/**
 * Names a local network resolves, not the internet's DNS: `localhost` (RFC 6761; it is loopback,
 * but a name is not an address: only a literal loopback address is ever a target), mDNS's
 * `.local` (RFC 6762), `.internal` (reserved for private use; cloud metadata lives at
 * `metadata.google.internal`), `.home.arpa` (RFC 8375) and `.localdomain`.
 */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'localdomain'];

/**
 * Public wildcard DNS that answers every name below it with 127.0.0.1: as `localhost`.
 * (`*.localtest.me`, `*.lvh.me`, `*.vcap.me`, `*.lacolhost.com`.)
 */
const LOOPBACK_SUFFIXES = ['localtest.me', 'lvh.me', 'vcap.me', 'lacolhost.com'];

/**
 * Public wildcard DNS that answers a name with the address written in it: `10.0.0.1.nip.io`,
 * `app.10-0-0-1.sslip.io`, `app-0a000001.nip.io` (hex), `--1.sslip.io` (IPv6 `::1`). A name
 * below them is refused when any address it embeds is not public; one embedding none is the
 * service's own (public) host.
 */
const EMBEDDING_SUFFIXES = ['nip.io', 'sslip.io', 'xip.io', 'traefik.me'];

/** The suffix of `name` (itself or a parent) among `suffixes`, if any. */
const under = (name: string, suffixes: readonly string[]) =>
  suffixes.find((suffix) => name === suffix || name.endsWith(`.${suffix}`));

/**
 * What `hostname` (a URL's `hostname`: `[…]` around IPv6) reaches. IPv4 in any form the URL
 * parser accepts (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) and IPv6 with an IPv4 inside
 * (`::ffff:10.0.0.1`, NAT64, 6to4) are read as the address they are. Loopback (127.0.0.0/8,
 * ::1) reaches only this machine; every other special range is non-public, and so are the names
 * above (local names, single labels, wildcard DNS of loopback or of a non-public address). Any
 * other DNS name is public; a host no http URL could have is non-public.
 */
export function hostReach(hostname: string): HostReach {
  const host = hostname.toLowerCase();
  if (host.startsWith('[') || host.includes(':')) {
    const inner = host.startsWith('[') ? host.slice(1, -1) : host;
    const address = IPV6_WITH_V4.test(inner) ? parsed(() => ipaddr.IPv6.parse(inner)) : undefined;
    return address ? ipv6Reach(address) : nonPublic('not a valid IPv6 address');
  }
  // What a URL's hostname is for an IPv4 address, whatever form it was given in: dotted decimal.
  if (CANONICAL_V4.test(host)) return ipv4Reach(new ipaddr.IPv4(host.split('.').map(Number)));
  if (MAYBE_V4.test(host)) {
    // A caller's string in another form (`0x7f.1`, `2130706433`): read as an http URL would.
    const canonical = urlHostname(host);
    if (canonical === undefined) return nonPublic('not a valid host');
    if (CANONICAL_V4.test(canonical)) return ipv4Reach(new ipaddr.IPv4(canonical.split('.').map(Number)));
  }
  return nameReach(host.replace(/\.$/, ''));
}

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const CANONICAL_V4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);
/** Text the URL parser may read as an IPv4 address (hex, octal, decimal, fewer parts), or a name. */
const MAYBE_V4 = /^[0-9a-fx.]+$/;
const IPV6_WITH_V4 = /^[0-9a-f:.]+$/;

/** The host an http URL with this host has (the URL parser's IPv4 rewriting), or undefined if none could. */
function urlHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * An address ipaddr.js parses, or undefined. Its parsers throw on bad input, and an exception
 * costs far more than the rest of a check: only text shaped like an address is handed to them.
 */
function parsed<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}

/** The rules a target is judged by: `allowLoopback` is ALLOW_LOOPBACK_TARGETS (development only). */
export type TargetRules = { allowLoopback: boolean };

/**
 * Why a URL's host may not be fetched or posted to (the sentence after "url"), or undefined
 * when it may: a non-public host never, a loopback address only under `allowLoopback`.
 */
export function targetProblem(hostname: string, rules: TargetRules): string | undefined {
  const reach = hostReach(hostname);
  if (reach.kind === 'non-public') {
    return `must not name a private, link-local or other non-public address: ${reach.range}`;
  }
  if (reach.kind === 'loopback' && !rules.allowLoopback) {
    return 'must not name a loopback address (this machine): only in development, with ALLOW_LOOPBACK_TARGETS=true';
  }
  return undefined;
}

function nameReach(name: string): HostReach {
  const local = under(name, LOCAL_SUFFIXES);
  if (local) return nonPublic(`a name of the local network (${local === 'localhost' ? '' : '.'}${local})`);
  if (!name.includes('.')) return nonPublic('a single-label name, resolved by the local network');
  const loopbackName = under(name, LOOPBACK_SUFFIXES);
  if (loopbackName) return nonPublic(`a name that resolves to loopback (${loopbackName})`);
  const embedding = under(name, EMBEDDING_SUFFIXES);
  const reach = embedding ? embeddedReach(name.slice(0, -embedding.length)) : PUBLIC;
  if (reach.kind === 'public') return PUBLIC;
  return nonPublic(`a ${embedding} name of ${reach.kind === 'loopback' ? 'loopback' : reach.range}`);
}

const DECIMAL_OCTET = /^(0|[1-9]\d{0,2})$/;
const HEX_ADDRESS = /^[0-9a-f]{8}$/;
const IPV6_TEXT = /^[0-9a-f:]+$/;

/**
 * What the addresses the labels before a wildcard DNS suffix may stand for reach: the first that
 * is not public, else public. Forms: four decimal octets in a row, split by dots or dashes
 * (`10.0.0.1`, `10-0-0-1`, `app-10-0-0-1`, `app.10.0.0.1`), eight hex digits (`0a000001`), and
 * a label that is IPv6 with dashes for colons (`fd00--1`, `--1`, after a name: `app-fd00--1`).
 */
function embeddedReach(prefix: string): HostReach {
  const tokens = prefix.split(/[.-]/);
  for (let i = 0; i + 4 <= tokens.length; i++) {
    const octets = tokens.slice(i, i + 4);
    if (octets.every((octet) => DECIMAL_OCTET.test(octet) && Number(octet) <= 255)) {
      const reach = ipv4Reach(new ipaddr.IPv4(octets.map(Number)));
      if (reach.kind !== 'public') return reach;
    }
  }
  for (const token of tokens) {
    if (!HEX_ADDRESS.test(token)) continue;
    const value = Number.parseInt(token, 16);
    const reach = ipv4Reach(new ipaddr.IPv4([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]));
    if (reach.kind !== 'public') return reach;
  }
  for (const label of prefix.split('.')) {
    if (!label.includes('-')) continue;
    const groups = label.split('-');
    // The longest tail of the label that is an IPv6 address counts.
    for (let i = 0; i < groups.length; i++) {
      const text = groups.slice(i).join(':');
      const shaped = IPV6_TEXT.test(text) && (text.includes('::') || groups.length - i === 8);
      const address = shaped ? parsed(() => ipaddr.IPv6.parse(text)) : undefined;
      if (!address) continue;
      const reach = ipv6Reach(address);
      if (reach.kind !== 'public') return reach;
      break;
    }
  }
  return PUBLIC;
}

const matches = <T extends IPv4 | IPv6>(address: T, range: Range<T>) => address.match(range.cidr);

function ipv4Reach(address: IPv4): HostReach {
  if (matches(address, LOOPBACK_V4)) return LOOPBACK;
  const range = IPV4_RANGES.find((r) => matches(address, r));
  return range ? nonPublic(range.name) : PUBLIC;
}

/** The IPv4 address in 32 bits of an IPv6 address's parts, from part `at` on. */
const v4In = (address: IPv6, at: number) => {
  const [high = 0, low = 0] = address.parts.slice(at, at + 2);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
};

function ipv6Reach(address: IPv6): HostReach {
  if (matches(address, LOOPBACK_V6)) return LOOPBACK;
  // v4-mapped is the IPv4 address itself (a dual-stack socket connects to it), loopback included.
  if (matches(address, MAPPED)) return ipv4Reach(address.toIPv4Address());
  // A translator reaches the embedded address from its own network: only a public one is safe.
  if (matches(address, NAT64)) return embedded(ipv4Reach(v4In(address, 6)), NAT64);
  if (matches(address, SIX_TO_FOUR)) return embedded(ipv4Reach(v4In(address, 1)), SIX_TO_FOUR);
  const range = IPV6_RANGES.find((r) => matches(address, r));
  if (range) return nonPublic(range.name);
  return matches(address, GLOBAL_UNICAST) ? PUBLIC : nonPublic('reserved (outside 2000::/3)');
}

const embedded = (reach: HostReach, via: Range<IPv6>): HostReach =>
  reach.kind === 'public'
    ? PUBLIC
    : nonPublic(`${via.name} of ${reach.kind === 'loopback' ? 'loopback' : reach.range}`);
