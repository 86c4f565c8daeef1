import { BlockList, isIP } from 'node:net';

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

/**
 * An IPv4 address carried inside an IPv6 one (mapped, compatible, NAT64), if
 * any, in dotted or hex form (`::127.0.0.1` is written `::7f00:1` once parsed).
 */
function embeddedV4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/** Why an address may not be a webhook target, or null when it may. */
export function blockedReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return describeV4(address);
  if (family === 6) {
    const inner = embeddedV4(address);
    if (inner) return describeV4(inner);
    if (!v6.check(address, 'ipv6')) return null;
    for (const [net, prefix, label] of BLOCKED_V6) {
      const one = new BlockList();
      one.addSubnet(net, prefix, 'ipv6');
      if (one.check(address, 'ipv6')) return label;
    }
    return 'reserved';
  }
  return 'not an IP address';
}
