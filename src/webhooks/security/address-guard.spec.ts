import { blockedReason } from './address-guard';

describe('SSRF address guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['168.63.129.16', 'cloud platform service (metadata)'],
    ['::ffff:168.63.129.16', 'cloud platform service (metadata)'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique local (private)'],
    ['fc00::1', 'unique local (private)'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['64:ff9b::10.0.0.1', 'private'],
    // IPv4-compatible (::/96), in the hex form URL parsing and inet_ntop produce.
    ['::7f00:1', 'loopback'],
    ['::a9fe:a9fe', 'link-local (cloud metadata)'],
    ['::a00:1', 'private'],
    // Judged by value, however written: expanded, translated, 6to4, Teredo, NAT64 in hex.
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['0000:0000:0000:0000:0000:ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local (cloud metadata)'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local (cloud metadata)'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
  ])('allows public %s', (address) => {
    expect(blockedReason(address)).toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(blockedReason('localhost')).toBe('not an IP address');
  });
});
