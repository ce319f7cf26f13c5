import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * IPv6 global unicast is 2000::/3 (IANA's IPv6 address space registry); the rest of the space is
 * special-purpose (loopback, unique-local, link-local, discard, segment routing, multicast...) or
 * not allocated. The embedded-IPv4 forms below it (IPv4-mapped, NAT64) are judged by the IPv4
 * they carry.
 */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** RFC 6052's well-known NAT64 prefix: the IPv4 is the last 32 bits, and must itself be public. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

const ipv4At = (parts: number[], high: number) =>
  new ipaddr.IPv4([parts[high]! >> 8, parts[high]! & 0xff, parts[high + 1]! >> 8, parts[high + 1]! & 0xff]);

/**
 * Public IPv4: ipaddr.js's range table covers IANA's IPv4 special-purpose registry (this network,
 * private, shared, loopback, link-local, IETF protocol assignments, documentation, 6to4 relay
 * anycast, benchmarking, AS112, AMT, reserved, broadcast) and multicast. Only what it calls
 * plain unicast is public; the few special blocks IANA marks globally reachable (AS112 sinks,
 * AMT relays, protocol anycast) hold no image host, so refusing them costs nothing.
 */
const isPublicV4 = (address: IPv4) => address.range() === 'unicast';

/** The IPv4 addresses an IPv6 address stands for on the wire, or undefined when it carries none. */
function embeddedIPv4(address: IPv6, text: string): IPv4[] | undefined {
  const parts = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
      // ipaddr.js reads the deprecated IPv4-compatible `::a.b.c.d` as mapped: that form is no
      // way to reach an IPv4 host any more (RFC 4291 2.5.5.1), so it carries nothing we allow
      return /ffff/i.test(text) ? [address.toIPv4Address()] : [];
    case 'rfc6052':
      // the local-use prefix 64:ff9b:1::/48 (RFC 8215) is a site's own translator, its IPv4
      // placed by a prefix length only that site knows: not globally reachable, refused whole
      return address.match(NAT64_WELL_KNOWN) ? [ipv4At(parts, 6)] : [];
    case '6to4':
      // 2002:AABB:CCDD::/48 routes to the 6to4 gateway at AA.BB.CC.DD (RFC 3056)
      return [ipv4At(parts, 1)];
    case 'teredo': {
      // 2001:0:<server>:<flags>:<port>:<client, bits inverted> (RFC 4380): both ends are reached
      const client = ipv4At(parts, 6);
      return [ipv4At(parts, 2), new ipaddr.IPv4(client.octets.map((octet) => ~octet & 0xff))];
    }
    case 'rfc6145':
      // IPv4-translated ::ffff:0:a.b.c.d (RFC 2765), obsoleted and used by no host
      return [];
    default:
      return undefined;
  }
}

function isPublicV6(address: IPv6, text: string): boolean {
  const carried = embeddedIPv4(address, text);
  if (carried) return carried.length > 0 && carried.every(isPublicV4);
  return address.match(GLOBAL_UNICAST) && address.range() === 'unicast';
}

/**
 * Whether the relay may connect to this address on a stranger's say-so: a public unicast
 * address, with addresses that carry an IPv4 inside IPv6 (IPv4-mapped, NAT64, 6to4, Teredo)
 * judged by the IPv4 they lead to. Anything that is not a plain IP address is not public.
 */
export function isPublicAddress(text: string): boolean {
  const family = isIP(text);
  if (family === 0) return false;
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv4' ? isPublicV4(address as IPv4) : isPublicV6(address as IPv6, text);
}
