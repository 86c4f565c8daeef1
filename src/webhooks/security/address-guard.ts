import { BlockList, isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard's address rules: private, loopback, link-local, metadata,
 * carrier-grade NAT, documentation, multicast and reserved ranges are not
 * webhook targets (unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true).
 */
const BLOCKED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  // Azure's host services (WireServer, DNS, DHCP, health probes): a cloud metadata endpoint
  // on a globally routable address, reachable from every Azure VM.
  ['168.63.129.16', 32, 'cloud platform service (metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const BLOCKED_V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'local NAT64'],
  ['100::', 64, 'discard'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const v4 = new BlockList();
for (const [net, prefix] of BLOCKED_V4) v4.addSubnet(net, prefix, 'ipv4');
const v6 = new BlockList();
for (const [net, prefix] of BLOCKED_V6) v6.addSubnet(net, prefix, 'ipv6');

function describeV4(address: string): string | null {
  if (!v4.check(address, 'ipv4')) return null;
  for (const [net, prefix, label] of BLOCKED_V4) {
    const one = new BlockList();
    one.addSubnet(net, prefix, 'ipv4');
    if (one.check(address, 'ipv4')) return label;
  }
  return 'reserved';
}

const LABELS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'reserved',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  uniqueLocal: 'unique local (private)',
  reserved: 'reserved',
};

/**
 * The IPv4 address an IPv6 one carries, judged by value (not by how it is
 * written): IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96),
 * IPv4-compatible (::/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16, bits
 * 16-47) and Teredo (2001::/32, the client address inverted in the low 32
 * bits). Undefined when it carries none.
 */
function embeddedV4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const b = v6.toByteArray();
  const v4 = (i: number, invert = false) =>
    new ipaddr.IPv4(b.slice(i, i + 4).map((x) => (invert ? ~x & 255 : x)));
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  switch (v6.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return v4(12);
    case '6to4':
      return v4(2);
    case 'teredo':
      return v4(12, true);
  }
  // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks); :: and ::1 are judged as IPv6.
  if (zero(0, 12) && !zero(12, 14)) return v4(12);
  return undefined;
}

/**
 * Why an address may not be a webhook target, or null when it may. Parsed
 * and classified by value (ipaddr.js): only globally routable unicast
 * passes, and every IPv6 form that carries an IPv4 address is judged by the
 * IPv4 inside. The explicit lists above add what ipaddr.js calls unicast.
 */
export function blockedReason(address: string): string | null {
  if (!isIP(address) || !ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return judgeV4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const inner = embeddedV4(v6);
  if (inner) return judgeV4(inner);
  const listed = describeV6(v6.toNormalizedString());
  if (listed) return listed;
  const range = v6.range();
  return range === 'unicast' ? null : (LABELS[range] ?? 'reserved');
}

function judgeV4(a: ipaddr.IPv4): string | null {
  const listed = describeV4(a.toString());
  if (listed) return listed;
  const range = a.range();
  return range === 'unicast' ? null : (LABELS[range] ?? 'reserved');
}

function describeV6(address: string): string | null {
  if (!v6.check(address, 'ipv6')) return null;
  for (const [net, prefix, label] of BLOCKED_V6) {
    const one = new BlockList();
    one.addSubnet(net, prefix, 'ipv6');
    if (one.check(address, 'ipv6')) return label;
  }
  return 'reserved';
}
